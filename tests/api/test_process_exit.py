"""The command-line process ends without the interpreter's teardown (mrsim.io.process_exit), yet as a normal
exit would: the exit code, every line of output, the ``atexit`` handlers; and a live thread keeps the normal exit."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import orjson


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_exit_now_runs_handlers_flushes_and_keeps_the_code(tmp_path: Path) -> None:
    done = _python(f"""
        import atexit, sys
        from mrsim.io.process_exit import exit_now
        atexit.register(lambda: open({str(tmp_path / 'handler')!r}, "w").write("ran"))
        sys.stdout.write("no newline yet")  # buffered: only a flush brings it out
        sys.stderr.write("err")
        exit_now(3)
        sys.exit(99)  # never reached
        """, tmp_path)
    assert done.returncode == 3
    assert done.stdout == "no newline yet" and done.stderr == "err"
    assert (tmp_path / "handler").read_text() == "ran"


def test_exit_now_returns_while_another_thread_runs(tmp_path: Path) -> None:
    done = _python("""
        import sys, threading, time
        from mrsim.io.process_exit import exit_now
        worker = threading.Thread(target=time.sleep, args=(0.3,))
        worker.start()
        exit_now(3)
        print("returned")
        worker.join()
        sys.exit(4)
        """, tmp_path)
    assert done.returncode == 4
    assert done.stdout.strip() == "returned"


def test_replay_process_output_and_exit_codes(tmp_path: Path) -> None:
    trace = tmp_path / "t.json"
    made = subprocess.run([sys.executable, "-m", "mrsim", "synth", "--jobs", "5", "--seed", "1", "-o", str(trace)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert made.returncode == 0, made.stderr
    done = subprocess.run([sys.executable, "-m", "mrsim", "replay", str(trace), "--nodes", "4", "--json",
                           "--no-cache"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout)["summary"]["jobs"] == 5
    missing = subprocess.run([sys.executable, "-m", "mrsim", "replay", str(tmp_path / "absent.json")],
                             capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert missing.returncode != 0
    assert missing.stderr.startswith("mrsim: error:") and "absent.json" in missing.stderr
