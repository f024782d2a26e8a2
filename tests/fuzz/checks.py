"""What a fuzz case runs, and what counts as a finding (see :mod:`tests.fuzz`)."""

from __future__ import annotations

import random
import signal
import time
import traceback
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from tests.hardening_cli import run_cli
from translator.api import compile_script
from translator.emit import emit_ddl
from translator.errors import TranslatorError
from translator.history import view_at
from translator.metadata import dump_metadata, load_metadata
from translator.metadata.model import UdfMetadata
from translator.warehouse.summary import history_entries

#: Exit codes a command may end with on any input (ok, failure, usage).
EXIT_CODES = (0, 1, 2)


@dataclass
class Findings:
    """Every finding once (by kind and the last line of its detail), its input kept in ``out``."""

    out: Path
    seen: dict[str, str] = field(default_factory=dict)

    def add(self, kind: str, text: str, detail: str) -> None:
        last = (detail.strip().splitlines() or [""])[-1][:200]
        key = f"{kind}: {last}"
        if key in self.seen:
            return
        n = len(self.seen) + 1
        self.seen[key] = text
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / f"finding-{n}.input").write_text(text, "utf-8", errors="surrogatepass")
        (self.out / f"finding-{n}.txt").write_text(f"{kind}\n{detail}", "utf-8", "replace")
        print(f"FINDING {n} {key[:300]}", flush=True)


class CaseTimeout(BaseException):
    """A case ran past its time: raised into it by a CPU timer, and no ``except Exception`` of the
    library can take it for its own failure."""


def _time_out(signum: int, frame: object) -> None:
    raise CaseTimeout


def timed(findings: Findings, kind: str, text: str, limit: float, run: Callable[[], None]) -> None:
    """``run()``; a finding if it raises anything but the package's errors, or takes over
    ``limit`` seconds of CPU (stopped at four times that: an exponential case would never end).
    CPU time, not the clock's: a run at low priority on a busy host waits a lot."""
    start = time.process_time()
    previous = signal.signal(signal.SIGPROF, _time_out)
    signal.setitimer(signal.ITIMER_PROF, 4 * limit)
    try:
        run()
    except TranslatorError:
        pass
    except CaseTimeout:
        pass
    except Exception:
        findings.add(kind, text, traceback.format_exc()[-4000:])
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    took = time.process_time() - start
    if took > limit:
        findings.add(f"slow-{kind}", text, f"took {took:.1f} s of CPU (limit {limit} s)")


def check_command(findings: Findings, text: str, *argv: str) -> None:
    code, _, err = run_cli(*argv)
    if code not in EXIT_CODES or "Traceback" in err:
        findings.add(f"command-{argv[0]}", text, f"{argv}\nexit {code}\n{err[-4000:]}")


def script_case(findings: Findings, sql: str, dialect: str, rng: random.Random) -> None:
    """Compile ``sql``; write, read back, emit and merge again what it made."""

    def run() -> None:
        result = compile_script(sql, dialect)
        for name, meta in result.functions.items():
            if meta is None:
                continue
            written = dump_metadata(meta)
            again = load_metadata(written)
            if dump_metadata(again) != written:
                findings.add("round-trip", sql, f"{name}: the written metadata reads differently")
            _emit_all(again, (name,), rng)
            compile_script(sql, dialect, into=again, into_name=name)

    timed(findings, "compile", sql, 20.0, run)


def script_commands(findings: Findings, sql: str, dialect: str, tmp: Path) -> None:
    """The commands that read a script: compile, transpile, apply and list."""
    path = tmp / "script.sql"
    path.write_text(sql, "utf-8", errors="surrogatepass")
    other = "trino" if dialect == "spark" else "spark"
    warehouse = str(tmp / "warehouse")
    for argv in (
        ("compile", "--dialect", dialect, "--output-dir", str(tmp / "out"), str(path)),
        ("transpile", "--from", dialect, "--to", other, str(path)),
        ("transpile", "--from", dialect, "--to", other, "--allow-lossy", str(path)),
        ("apply", "--warehouse", warehouse, "--dialect", dialect, str(path)),
        ("list", "--warehouse", warehouse),
    ):
        check_command(findings, sql, *argv)


def _emit_all(meta: UdfMetadata, name: tuple[str, ...], rng: random.Random) -> None:
    for dialect in ("spark", "trino"):
        for definition in [None, *(d.definition_id for d in meta.definitions[:3])]:
            with suppress(TranslatorError):
                emit_ddl(meta, dialect, name, definition=definition, allow_lossy=rng.random() < 0.5)


def document_case(findings: Findings, text: str, rng: random.Random) -> None:
    """Load a document; write, emit, list its history and views, and merge into it."""

    def run() -> None:
        meta = load_metadata(text, source="fuzz.metadata.json")
        dump_metadata(meta)
        _emit_all(meta, ("f",), rng)
        history_entries(meta)
        for entry in range(1, min(len(meta.definition_log), 20) + 1):
            with suppress(TranslatorError):
                view_at(meta, entry)
        for dialect, sql in (
            ("spark", "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 7;"),
            ("trino", "CREATE FUNCTION f(x integer) RETURNS integer RETURN x + 1;"),
            ("spark", "DROP FUNCTION f;"),
        ):
            result = compile_script(sql, dialect, into=meta)
            for made in result.functions.values():
                if made is not None:
                    dump_metadata(made)

    timed(findings, "document", text, 20.0, run)


def document_commands(findings: Findings, text: str, tmp: Path) -> None:
    """The commands that read a metadata file: validate, emit, compile into it."""
    path = tmp / "f.metadata.json"
    path.write_text(text, "utf-8", errors="surrogatepass")
    script = tmp / "s.sql"
    script.write_text("CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 9;")
    argvs: list[tuple[str, ...]] = [("validate", str(path))]
    for dialect in ("spark", "trino"):
        argvs.append(("emit", "--dialect", dialect, "--name", "f", str(path)))
    output = str(tmp / "o.json")
    argvs.append(("compile", "--dialect", "spark", "--into", str(path), "-o", output, str(script)))
    for argv in argvs:
        check_command(findings, text, *argv)
