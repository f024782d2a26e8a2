"""``python -m translator.cli``: the ``iceberg-udf`` command."""

from translator.cli.console import main

raise SystemExit(main())
