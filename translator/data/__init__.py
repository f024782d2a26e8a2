"""Facts the translator reads at run time (built-in function names per engine)."""
