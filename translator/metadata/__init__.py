"""The Iceberg UDF metadata file: the spec's models, reading with validation, the canonical text.

* :mod:`.model`: the pydantic models (field names are the spec's, unknown fields kept);
* :mod:`.dump`: the byte-stable file text; :mod:`.copying`: fast deep copies;
* :mod:`.validate` (with :mod:`.problems` and :mod:`.type_checks`): every problem of a document
  with its JSON path;
* :mod:`.read`: :func:`load_metadata` / :func:`read_metadata_file`, text or file to models;
* :mod:`.checked`: a commit's text and validation, at the cost of what the merge changed.
"""

from translator.collector import bulk_allocation
from translator.metadata.checked import Written, checked_dump, checked_write
from translator.metadata.copying import deep_copy
from translator.metadata.dump import dump_metadata, metadata_to_json
from translator.metadata.model import (
    Definition,
    DefinitionLogEntry,
    DefinitionVersion,
    DefinitionVersionRef,
    Parameter,
    Representation,
    SqlRepresentation,
    UdfMetadata,
    UnknownRepresentation,
)
from translator.metadata.problems import Problem
from translator.metadata.read import (
    check_metadata_files,
    load_metadata,
    metadata_from_document,
    read_metadata_file,
)
from translator.metadata.validate import validate_metadata

__all__ = [
    "Definition",
    "DefinitionLogEntry",
    "DefinitionVersion",
    "DefinitionVersionRef",
    "Parameter",
    "Problem",
    "Representation",
    "SqlRepresentation",
    "UdfMetadata",
    "UnknownRepresentation",
    "Written",
    "bulk_allocation",
    "check_metadata_files",
    "checked_dump",
    "checked_write",
    "deep_copy",
    "dump_metadata",
    "load_metadata",
    "metadata_from_document",
    "metadata_to_json",
    "read_metadata_file",
    "validate_metadata",
]
