"""The lark grammars, one per dialect. Shipped inside the wheel as ``translator.grammars``."""
