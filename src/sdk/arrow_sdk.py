#!/usr/bin/env python3
"""Arrow worker SDK for Python (standard library only): the worker side of Arrow's file protocol.

Copy this one file beside your trainer (or put its directory on PYTHONPATH) and:

    import arrow_sdk as arrow
    env = arrow.env()                          # node, scope, inputs, resume point, protocol, frozen tuple
    data, split = arrow.frozen_data()          # the data set Arrow froze, read from an ancestor's scope
    arrow.log_metric(epoch, dev_r2, loss=l)    # one line in metrics.jsonl
    arrow.save_checkpoint(epoch, state)        # ckpt/step_000012.json, written atomically
    path = arrow.resume_checkpoint()           # ARROW_RESUME_FROM on a restart, else None
    arrow.write_manifest(score, "model.json", data=data, split=split)   # results.json: your claim

Shell workers use the same functions through a small command line:

    python3 arrow_sdk.py metric <step> <value> [key=value ...]
    python3 arrow_sdk.py checkpoint <step> <file>
    python3 arrow_sdk.py manifest --score S --artifact A --data D --split P [--code FILE] [--set k=v ...]
    python3 arrow_sdk.py hash <file>
    python3 arrow_sdk.py data-file | split-file | resume | input <name> | env

The SDK honours the chaos-testing faults Arrow hands a command worker in ARROW_FAULTS (false_claim,
manifest_override, out_of_scope_write, stall, crash) and appends one line to ARROW_FAULT_LOG each time one
fires. The reference is WORKERS.md at the top of the Arrow repository.
"""
import hashlib
import json
import math
import os
import re
import sys
import time

__all__ = [
    "ArrowEnv", "env", "log_metric", "save_checkpoint", "resume_checkpoint", "checkpoint_step", "file_hash",
    "find_input", "frozen_data", "write_manifest",
]

_STARTED = time.monotonic()
MAX_LINE_BYTES = 64 * 1024
MAX_MANIFEST_BYTES = 1024 * 1024
TUPLE = ("data_hash", "split_hash", "protocol_version", "seed")
# Keys write_manifest computes itself; passing them as extras would bypass the computation.
RESERVED = ("node", "metric", "score", "artifact", "code_sha", "wall_s") + TUPLE
_EXT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$")


class ArrowEnv:
    """What Arrow tells a worker through its environment (see WORKERS.md, "Environment")."""

    def __init__(self, environ):
        def js(name, default):
            raw = environ.get(name)
            if raw is None or raw == "":
                return default
            try:
                return json.loads(raw)
            except ValueError as e:
                raise ValueError("Cannot read %s: not JSON (%s)" % (name, e)) from None

        def integer(name, default):
            raw = environ.get(name)
            try:
                return int(raw) if raw else default
            except ValueError:
                raise ValueError("Cannot read %s: %r is not an integer" % (name, raw)) from None

        self.run_dir = environ.get("ARROW_RUN_DIR") or None
        self.scope = os.path.abspath(environ.get("ARROW_SCOPE") or os.getcwd())
        self.node = environ.get("ARROW_NODE") or None
        self.attempt = integer("ARROW_ATTEMPT", 1)
        self.lap = integer("ARROW_LAP", 1)
        self.resume_from = environ.get("ARROW_RESUME_FROM") or None
        self.metric = environ.get("ARROW_METRIC") or None
        self.direction = environ.get("ARROW_DIRECTION") or "maximize"
        self.protocol_version = environ.get("ARROW_PROTOCOL_VERSION") or None
        self.inputs = js("ARROW_INPUTS", {})
        self.sources = js("ARROW_SOURCES", {})
        self.frozen = js("ARROW_FROZEN", None)
        self.faults = js("ARROW_FAULTS", [])
        self.fault_log = environ.get("ARROW_FAULT_LOG") or None
        for name, value, kind in (("ARROW_INPUTS", self.inputs, dict), ("ARROW_SOURCES", self.sources, dict),
                                  ("ARROW_FAULTS", self.faults, list)):
            if not isinstance(value, kind):
                raise ValueError("Cannot read %s: expected a JSON %s" % (name, kind.__name__))
        if self.frozen is not None and not isinstance(self.frozen, dict):
            raise ValueError("Cannot read ARROW_FROZEN: expected a JSON object")
        self.inputs = _scopes("ARROW_INPUTS", self.inputs)
        self.sources = _scopes("ARROW_SOURCES", self.sources)

    def as_dict(self):
        return dict(vars(self))


def _scopes(name, refs):
    """{node: absolute scope}; an entry may also be {"scope": ..., "role": ...}."""
    out = {}
    for node, ref in refs.items():
        scope = ref.get("scope") if isinstance(ref, dict) else ref
        if not isinstance(scope, str) or not os.path.isabs(scope):
            raise ValueError("Cannot read %s: %r is not an absolute path for node %s" % (name, scope, node))
        out[node] = scope
    return out


_env = None
_last_step = None
_fired = set()


def env():
    """The worker's environment, read once per process."""
    global _env
    if _env is None:
        _env = ArrowEnv(os.environ)
    return _env


def _finite(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError("Cannot %s: %r is not a finite number" % (what, value))
    return value


def _metric_name(what):
    m = env().metric
    if not m:
        raise RuntimeError("Cannot %s: ARROW_METRIC is not set (arrow sets it to the plan's protocol.metric; "
                           "set it yourself when you run the program outside arrow)" % what)
    return m


def _atomic_write(path, data):
    """Writes bytes under a dot-prefixed temporary name in the same directory, fsyncs, renames into place."""
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, ".%s.%d.tmp" % (name, os.getpid()))
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


# ---------------------------------------------------------------- faults (chaos testing, see WORKERS.md)

def _faults(kind):
    """(position in ARROW_FAULTS, fault) pairs of a kind aimed at this node and attempt."""
    e = env()
    out = []
    for i, f in enumerate(e.faults):
        if not isinstance(f, dict) or f.get("kind") != kind:
            continue
        if f.get("node") not in (None, e.node):
            continue
        attempts = f.get("attempts")
        if isinstance(attempts, list) and e.attempt not in attempts:
            continue
        out.append((i, f))
    return out


def _already_fired(position, kind):
    """True when this fault fired before in this attempt — in this process or (CLI use) an earlier one."""
    if (position, kind) in _fired:
        return True
    e = env()
    if not e.fault_log:
        return False
    try:
        with open(e.fault_log) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict) and rec.get("kind") == kind and rec.get("position") == position \
                        and rec.get("node") == e.node and rec.get("attempt") == e.attempt:
                    return True
    except OSError:
        pass
    return False


def _record_fault(position, kind, **detail):
    """One line in ARROW_FAULT_LOG: the fault's kind, its position in ARROW_FAULTS and, when Arrow numbered it,
    its run-wide `index` (how Arrow tells which fault fired)."""
    _fired.add((position, kind))
    e = env()
    rec = dict(detail, kind=kind, position=position, node=e.node, attempt=e.attempt)
    index = e.faults[position].get("index")
    if isinstance(index, int) and not isinstance(index, bool):
        rec["index"] = index
    line = json.dumps(rec, sort_keys=True, allow_nan=False) + "\n"
    if not e.fault_log:
        sys.stderr.write("arrow_sdk: fault %s fired (no ARROW_FAULT_LOG to record it)\n" % kind)
        return
    try:
        with open(e.fault_log, "a") as f:
            f.write(line)
            f.flush()
    except OSError as err:
        sys.stderr.write("arrow_sdk: cannot record fault %s in %s: %s\n" % (kind, e.fault_log, err))


def _num(value, default):
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return value if ok else default


def _step_faults(step):
    """Faults that fire when the worker logs `step`: an out-of-lane write, a crash, a stall."""
    for i, f in _faults("out_of_scope_write"):
        if step >= _num(f.get("at_tick"), 1) and not _already_fired(i, "out_of_scope_write"):
            target = str(f.get("path", ""))
            target = os.path.expanduser(target)
            if not os.path.isabs(target):
                run = env().run_dir or os.path.dirname(os.path.dirname(env().scope))
                target = os.path.join(run, "nodes", target)
            outcome = "written"
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w") as out:
                    out.write("written by %s outside its scope (fault out_of_scope_write)\n" % env().node)
            except OSError as err:
                outcome = "refused: %s" % err.strerror
            _record_fault(i, "out_of_scope_write", path=target, step=step, outcome=outcome)
    for i, f in _faults("crash"):
        if step >= _num(f.get("at_step"), 0) and not _already_fired(i, "crash"):
            code = f.get("exit", 1)
            code = code if isinstance(code, int) and 0 < code < 256 else 1
            _record_fault(i, "crash", step=step, exit=code)
            sys.stdout.flush()
            sys.stderr.write("arrow_sdk: injected crash at step %s (fault crash, exit %d)\n" % (step, code))
            sys.stderr.flush()
            os._exit(code)
    for i, f in _faults("stall"):
        if step >= _num(f.get("at_step"), 0) and not _already_fired(i, "stall"):
            seconds = _num(f.get("seconds"), None)
            _record_fault(i, "stall", step=step, seconds=seconds)
            sys.stdout.flush()
            if seconds is not None and seconds >= 0:
                time.sleep(seconds)
            else:
                while True:
                    time.sleep(3600)


def _manifest_faults(manifest):
    lap = env().lap
    for i, f in _faults("false_claim"):
        claims = f.get("claims")
        if isinstance(claims, list) and 0 < lap <= len(claims) and not _already_fired(i, "false_claim"):
            _record_fault(i, "false_claim", claimed=claims[lap - 1], score=manifest.get("score"), lap=lap)
            manifest["score"] = claims[lap - 1]
    for i, f in _faults("manifest_override"):
        if isinstance(f.get("set"), dict) and not _already_fired(i, "manifest_override"):
            _record_fault(i, "manifest_override", fields=sorted(f["set"]))
            manifest.update(f["set"])
    return manifest


# ---------------------------------------------------------------- the protocol

def log_metric(step, value, **extra):
    """Appends {"step": step, "<metric>": value, **extra} to metrics.jsonl and flushes it. Steps never go back
    within one process; both numbers must be finite. Returns the record written."""
    global _last_step
    _finite(step, "log a metric step")
    _finite(value, "log metric value for step %r" % step)
    metric = _metric_name("log a metric")
    clash = [k for k in extra if k in ("step", metric)]
    if clash:
        raise ValueError("Cannot log a metric: extra key %r would overwrite the step or the metric" % clash[0])
    if _last_step is not None and step < _last_step:
        raise ValueError("Cannot log step %r: it comes after step %r (steps never go back)" % (step, _last_step))
    _step_faults(step)
    record = {"step": step, metric: value}
    record.update(extra)
    try:
        line = json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n"
    except (TypeError, ValueError) as e:
        raise ValueError("Cannot log step %r: %s" % (step, e)) from None
    if len(line.encode()) > MAX_LINE_BYTES:
        raise ValueError("Cannot log step %r: the line is over 64 KiB" % step)
    with open(os.path.join(env().scope, "metrics.jsonl"), "a") as f:
        f.write(line)
        f.flush()
    _last_step = step
    return record


def save_checkpoint(step, payload, ext=None):
    """Writes ckpt/step_NNNNNN.<ext> atomically (temporary dot-name, fsync, rename): Arrow never sees half a
    checkpoint. bytes are written as they are (.bin), str as text (.txt), anything else as JSON (.json).
    Returns the checkpoint's absolute path."""
    _finite(step, "save a checkpoint step")
    if step < 0 or int(step) != step:
        raise ValueError("Cannot save a checkpoint: step %r is not a whole number >= 0" % step)
    if isinstance(payload, (bytes, bytearray)):
        data, default = bytes(payload), "bin"
    elif isinstance(payload, str):
        data, default = payload.encode(), "txt"
    else:
        try:
            data, default = (json.dumps(payload, allow_nan=False) + "\n").encode(), "json"
        except (TypeError, ValueError) as e:
            raise ValueError("Cannot save checkpoint %r as JSON: %s" % (step, e)) from None
    ext = default if ext is None else str(ext).lstrip(".")
    if not _EXT.match(ext):
        raise ValueError("Cannot save a checkpoint: extension %r is not a plain file extension" % ext)
    folder = os.path.join(env().scope, "ckpt")
    os.makedirs(folder, exist_ok=True)
    return _atomic_write(os.path.join(folder, "step_%06d.%s" % (int(step), ext)), data)


def resume_checkpoint():
    """The checkpoint to continue from (ARROW_RESUME_FROM, set only on a restart), or None."""
    path = env().resume_from
    if path is None:
        return None
    if not os.path.isfile(path):
        raise FileNotFoundError("Cannot resume: ARROW_RESUME_FROM names %r, which is not a file" % path)
    return path


def checkpoint_step(path):
    """The step a checkpoint file stands for: the first run of digits in its name (step_000012.json -> 12)."""
    m = re.search(r"[0-9]+", os.path.basename(path))
    return int(m.group(0)) if m else None


def file_hash(path):
    """sha256 hex digest of the file's bytes: how Arrow computes data_hash and split_hash."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def find_input(name):
    """Absolute path of `name` in the first artifact ancestor (by sorted node id) that has it, else None."""
    for node in sorted(env().inputs):
        path = os.path.join(env().inputs[node], name)
        if os.path.exists(path):
            return path
    return None


def _inside(base, rel):
    if not isinstance(rel, str) or not rel or os.path.isabs(rel):
        return None
    path = os.path.normpath(os.path.join(base, rel))
    return path if path.startswith(os.path.normpath(base) + os.sep) else None


def frozen_data():
    """(data, split): absolute paths of the frozen data set's files, found through the ancestors' manifests —
    the one whose data_hash is the frozen one (before the tuple is frozen: the first that names both)."""
    e = env()
    want = (e.frozen or {}).get("data_hash")
    for node in sorted(e.inputs):
        m = _read_json(os.path.join(e.inputs[node], "results.json"))
        if not isinstance(m, dict) or (want is not None and m.get("data_hash") != want):
            continue
        data, split = _inside(e.inputs[node], m.get("artifact")), _inside(e.inputs[node], m.get("split"))
        if data and split:
            return data, split
    raise LookupError("Cannot find the frozen data set: no input in ARROW_INPUTS (%s) has a results.json "
                      "naming artifact and split%s" % (", ".join(sorted(e.inputs)) or "none",
                                                      " with data_hash " + want[:12] if want else ""))


def _inherited():
    """protocol_version and seed: from ARROW_FROZEN, else from the inputs' manifests (sorted ids, first wins)."""
    e = env()
    out = {}
    for key in ("protocol_version", "seed"):
        if e.frozen and e.frozen.get(key) is not None:
            out[key] = e.frozen[key]
    for node in sorted(e.inputs):
        m = _read_json(os.path.join(e.inputs[node], "results.json"))
        for key in ("protocol_version", "seed"):
            if key not in out and isinstance(m, dict) and m.get(key) is not None:
                out[key] = m[key]
    return out


def _main_program():
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None) or (sys.argv[0] if sys.argv and sys.argv[0] else None)
    return path if path and os.path.isfile(path) else None


def _compose(score, artifact, data, split, code, extra):
    e = env()
    if not e.node:
        raise RuntimeError("Cannot write results.json: ARROW_NODE is not set (arrow sets it; set it yourself "
                           "when you run the program outside arrow)")
    bad = [k for k in extra if k in RESERVED]
    if bad:
        raise ValueError("Cannot write results.json: %r is computed by write_manifest, not an extra field" % bad[0])
    manifest = {"node": e.node}
    if e.metric:
        manifest["metric"] = e.metric
    if score is not None:
        manifest["score"] = _finite(score, "claim a score")
    if artifact is not None:
        path = os.path.abspath(os.path.join(e.scope, artifact))
        rel = os.path.relpath(path, e.scope)
        if rel.startswith(".." + os.sep) or rel == ".." or not os.path.isfile(path):
            raise ValueError("Cannot name artifact %r: it must be a file inside the scope %s" % (artifact, e.scope))
        manifest["artifact"] = rel
    if data is not None:
        manifest["data_hash"] = file_hash(data)
    if split is not None:
        manifest["split_hash"] = file_hash(split)
    manifest.update(_inherited())
    program = _main_program() if code is None else code
    if program:
        manifest["code_sha"] = file_hash(program)[:12]
    manifest["wall_s"] = round(time.monotonic() - _STARTED, 3)
    manifest.update(extra)
    return manifest


def _write(manifest):
    _manifest_faults(manifest)
    try:
        text = json.dumps(manifest, indent=2, sort_keys=True, allow_nan=False) + "\n"
    except (TypeError, ValueError) as err:
        raise ValueError("Cannot write results.json: %s" % err) from None
    if len(text.encode()) > MAX_MANIFEST_BYTES:
        raise ValueError("Cannot write results.json: it is over 1 MiB")
    _atomic_write(os.path.join(env().scope, "results.json"), text.encode())
    return manifest


def write_manifest(score=None, artifact=None, data=None, split=None, code=None, **extra):
    """Writes results.json atomically and returns it: node, metric, score, artifact (relative to the scope),
    data_hash and split_hash of the files you pass (the ones you actually used), protocol_version and seed
    (from the frozen tuple), code_sha (sha256 of `code`, default the main program; "" for none; 12 hex),
    wall_s (seconds since the SDK was imported), then your extra fields."""
    return _write(_compose(score, artifact, data, split, code, extra))


# ---------------------------------------------------------------- command line, for shell workers

def _value(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


def _pairs(items, what):
    out = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError("Cannot read %s %r: expected key=value" % (what, item))
        out[key] = _value(value)
    return out


def _cli(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="arrow_sdk.py", description="Arrow worker SDK, for shell workers.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("metric", help="append one line to metrics.jsonl")
    p.add_argument("step", type=float)
    p.add_argument("value", type=float)
    p.add_argument("extra", nargs="*", help="key=value (JSON values allowed)")
    p = sub.add_parser("checkpoint", help="copy FILE into ckpt/step_NNNNNN.<ext of FILE>, atomically")
    p.add_argument("step", type=float)
    p.add_argument("file")
    p = sub.add_parser("manifest", help="write results.json")
    p.add_argument("--score", type=float)
    p.add_argument("--artifact")
    p.add_argument("--data")
    p.add_argument("--split")
    p.add_argument("--code", help="the program whose sha256 becomes code_sha (e.g. \"$0\")")
    p.add_argument("--wall-s", type=float, help="wall time to report (default: this command's own)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="an extra field (repeatable)")
    p = sub.add_parser("hash", help="print the sha256 of a file, as Arrow computes data_hash")
    p.add_argument("file")
    sub.add_parser("data-file", help="print the frozen data set's data file (e.g. data.csv)")
    sub.add_parser("split-file", help="print the frozen data set's split file (e.g. split.json)")
    sub.add_parser("resume", help="print the checkpoint to resume from (nothing when starting fresh)")
    p = sub.add_parser("input", help="print the path of NAME in the first ancestor scope that has it")
    p.add_argument("name")
    sub.add_parser("env", help="print what arrow told this worker, as JSON")
    a = ap.parse_args(argv)
    whole = lambda v: int(v) if float(v).is_integer() else v  # noqa: E731 - "3" stays 3 in metrics.jsonl
    if a.cmd == "metric":
        log_metric(whole(a.step), whole(a.value), **_pairs(a.extra, "metric field"))
    elif a.cmd == "checkpoint":
        with open(a.file, "rb") as f:
            payload = f.read()
        ext = os.path.basename(a.file).rpartition(".")[2] if "." in os.path.basename(a.file) else "bin"
        print(save_checkpoint(whole(a.step), payload, ext=ext))
    elif a.cmd == "manifest":
        m = _compose(a.score, a.artifact, a.data, a.split, a.code or "", _pairs(a.set, "--set"))
        # This command's own run time says nothing about the worker's: report only what the caller measured.
        if a.wall_s is None:
            del m["wall_s"]
        else:
            m["wall_s"] = a.wall_s
        print(json.dumps(_write(m), sort_keys=True))
    elif a.cmd == "hash":
        print(file_hash(a.file))
    elif a.cmd in ("data-file", "split-file"):
        print(frozen_data()[0 if a.cmd == "data-file" else 1])
    elif a.cmd == "resume":
        path = resume_checkpoint()
        if path:
            print(path)
    elif a.cmd == "input":
        path = find_input(a.name)
        if path is None:
            raise LookupError("Cannot find %r in any input scope (%s)" % (a.name, ", ".join(sorted(env().inputs))))
        print(path)
    elif a.cmd == "env":
        print(json.dumps(env().as_dict(), sort_keys=True))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(_cli(sys.argv[1:]))
    except (ValueError, LookupError, RuntimeError, OSError) as err:
        sys.stderr.write("arrow_sdk: %s\n" % err)
        sys.exit(1)
