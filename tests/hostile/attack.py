#!/usr/bin/env python3
"""A hostile command worker: one attack on Arrow per subcommand, tried from inside the node's own scope.

Usage: attack.py <attack> [args...]. Every attack says what it did on stdout (logs/<node>.out), creates its
hostile object, holds for HOLD seconds (default 1.5) so Arrow looks at it while the worker runs, and, unless
the attack is the manifest itself, ends with a plain results.json naming the node.
"""
import json
import os
import signal
import socket
import sys
import time

NODE = os.environ.get("ARROW_NODE", "?")
METRIC = os.environ.get("ARROW_METRIC", "dev_r2")


def say(*parts):
    print(*parts, flush=True)


def hold():
    time.sleep(float(os.environ.get("HOLD", "1.5")))


def manifest(**extra):
    body = dict({"node": NODE}, **extra)
    with open(".results.tmp", "w") as f:
        json.dump(body, f)
    os.replace(".results.tmp", "results.json")


def metrics(values):
    with open("metrics.jsonl", "a") as f:
        for step, v in enumerate(values):
            f.write(json.dumps({"step": step, METRIC: v}) + "\n")


def socket_in_scope(name="sock"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.lexists(name):
        os.unlink(name)  # a restart finds the last attempt's socket
    s.bind(name)
    s.listen(1)
    say("listening on unix socket", name)
    return s


def long_path():
    """Directories nested until the path is over 4,096 characters, and a 100-deep chain of short ones."""
    top = os.getcwd()
    length = 0
    for i in range(24):
        name = "%02d" % i + "d" * 200
        os.mkdir(name)
        os.chdir(name)
        length += len(name) + 1
    with open("bottom.txt", "w") as f:
        f.write("at the bottom of a %d-character path\n" % length)
    os.chdir(top)
    os.makedirs("/".join(["x"] * 100))
    say("made a path of", length, "characters and a 100-deep chain")


def links_out(outside):
    """results.json, metrics.jsonl and ckpt/ as symlinks to files outside the scope that look excellent."""
    for name in ("results.json", "metrics.jsonl", "ckpt"):
        if os.path.lexists(name):
            os.unlink(name)
    os.symlink(os.path.join(outside, "forged_results_%s.json" % NODE), "results.json")
    os.symlink(os.path.join(outside, "great_metrics.jsonl"), "metrics.jsonl")
    os.symlink(os.path.join(outside, "ckpt"), "ckpt")
    say("linked results.json, metrics.jsonl and ckpt outside the scope")


def escape_names():
    for name in ["\x1b]0;pwned\x07title", "\x1b[2J\x1b[31mRED", "bell\x07\x07", "cr\rover", "\u202eexe.txt"]:
        with open(name, "w") as f:
            f.write("hostile name\n")
    say("wrote files whose names hold terminal escapes")


def deep_manifest(depth):
    with open("results.json", "w") as f:
        f.write('{"node": %s, "score": 0.5, "x": ' % json.dumps(NODE))
        f.write("[" * depth + "]" * depth + "}")
    say("wrote a manifest nested", depth, "deep")


def huge_manifest(mb):
    with open("results.json", "w") as f:
        f.write('{"node": %s, "score": 0.5, "pad": "' % json.dumps(NODE))
        chunk = "A" * (1 << 20)
        for _ in range(mb):
            f.write(chunk)
        f.write('"}')
    say("wrote a", mb, "MB manifest")


def raw_manifest(text):
    with open("results.json", "w") as f:
        f.write(text.replace("NODE", json.dumps(NODE)))
    say("wrote results.json:", text[:80])


def self_written(kind):
    """A claim of 0.999 whose 'artifact' is self-made: a mock model or a log that prints the score."""
    frozen = json.loads(os.environ.get("ARROW_FROZEN") or "{}")
    metrics([0.9, 0.95, 0.999])
    if kind == "mock":
        with open("model.json", "w") as f:
            json.dump({"kind": "mock", "score": 0.999}, f)
        artifact = "model.json"
    else:
        with open("eval.log", "w") as f:
            f.write("recomputed dev_r2 on the frozen data\n0.999\n")
        artifact = "eval.log"
    manifest(score=0.999, artifact=artifact, metric=METRIC, **frozen)
    say("claimed 0.999 from a self-written", kind, "artifact", artifact)


def zero_manifest():
    if os.path.lexists("results.json"):
        os.unlink("results.json")
    os.symlink("/dev/zero", "results.json")
    say("results.json -> /dev/zero")


def flood(mb):
    """Metrics lines as fast as the disk takes them: mb megabytes of valid, improving lines."""
    line_no = 0
    written = 0
    with open("metrics.jsonl", "a") as f:
        while written < mb << 20:
            block = "".join(
                '{"step": %d, "%s": %.6f}\n' % (line_no + i, METRIC, (line_no + i) / 1e9) for i in range(4096)
            )
            line_no += 4096
            f.write(block)
            written += len(block)
    say("flooded", written, "bytes in", line_no, "lines")


def giant_line(mb):
    with open("metrics.jsonl", "a") as f:
        f.write('{"step": 0, "%s": 0.1}\n' % METRIC)
        f.write('{"step": 1, "%s": 0.2, "pad": "' % METRIC + "B" * (mb << 20) + '"}\n')
        f.write('{"step": 2, "%s": 0.3}\n' % METRIC)
    say("wrote a", mb, "MB metrics line between two good ones")


def ckpt_flood(count):
    """Each checkpoint follows a metric line that improves on the last by 0.01 (above PLATEAU_EPS), so the
    flood is progress however many ticks it is observed over: never a plateau, only a flood."""
    os.makedirs("ckpt", exist_ok=True)
    for i in range(count):
        with open("metrics.jsonl", "a") as f:
            f.write(json.dumps({"step": i, METRIC: 0.1 + 0.01 * i}) + "\n")
        with open("ckpt/.tmp", "w") as f:
            f.write("{}")
        os.replace("ckpt/.tmp", "ckpt/step_%06d.json" % i)
    say("wrote", count, "checkpoints")


def many_files(count):
    for d in range(count // 1000):
        os.makedirs("d%03d" % d, exist_ok=True)
        for i in range(1000):
            with open("d%03d/f%04d" % (d, i), "w") as f:
                f.write(str(i))
    say("wrote", count, "files")


def find_arrow():
    """Arrow's pid, found in /proc: the nearest ancestor whose command line runs src/cli/main.ts. (Only an
    ancestor: other arrow processes on this machine are not this test's to signal.)"""
    pid = os.getppid()
    while pid > 1:
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmd = f.read().split(b"\0")
            with open("/proc/%d/stat" % pid) as f:
                stat = f.read()
        except OSError:
            return None
        if any(a.endswith(b"src/cli/main.ts") for a in cmd):
            return pid
        pid = int(stat[stat.rindex(")") + 2:].split()[1])
    return None


def visible_arrows():
    """How many arrow processes this worker can see in /proc at all."""
    n = 0
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                n += any(a.endswith(b"src/cli/main.ts") for a in f.read().split(b"\0"))
        except OSError:
            pass
    return n


def signal_arrow(sig, marker=None):
    say("arrow processes visible in /proc:", visible_arrows())
    if marker and os.path.exists(marker):
        say("signalled arrow before; not again")
        return
    if marker:
        try:
            open(marker, "w").close()
        except OSError as e:
            say("cannot leave a marker:", e)
    pid = find_arrow()
    if pid is None:
        say("arrow not found in /proc")
        return
    say("found arrow at pid", pid)
    try:
        os.kill(pid, getattr(signal, sig))
        say("sent", sig, "to arrow")
        if sig == "SIGSTOP":
            time.sleep(float(os.environ.get("FROZEN_FOR", "2")))
            os.kill(pid, signal.SIGCONT)
            say("sent SIGCONT to arrow")
    except OSError as e:
        say("could not signal arrow:", e)


def reach_network(port):
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=2) as s:
            s.sendall(("exfiltrated by %s\n" % NODE).encode())
        say("connected to 127.0.0.1:%s" % port)
    except OSError as e:
        say("network refused:", e)


def daemon(beat, how=""):
    """Double fork: the grandchild leaves the process group (setsid) and keeps a heartbeat file fresh.
    naive: keeps the worker's stdout/stderr and environment; detach: closes the pipes; scrub: closes them
    and drops its environment too, and with it any token Arrow put there."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            if how in ("detach", "scrub"):
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
            argv = ["/bin/sh", "-c", 'while :; do date +%s%N > "$0" 2>/dev/null; sleep 0.1; done', beat]
            os.execve(argv[0], argv, {"PATH": "/usr/bin:/bin"} if how == "scrub" else dict(os.environ))
        os._exit(0)
    os.wait()
    say("daemon started:", how or "naive")


def loot(paths):
    """Reads what a worker should never see and keeps it in its own scope (its result is public)."""
    run_dir = os.environ.get("ARROW_RUN_DIR", "")
    if "@other-runs" in paths:
        paths.remove("@other-runs")
        runs = os.path.dirname(run_dir)
        try:
            others = [d for d in sorted(os.listdir(runs)) if os.path.join(runs, d) != run_dir]
        except OSError as e:
            others = []
            say("cannot list the runs directory:", e)
        paths += [os.path.join(runs, d, "state.json") for d in others] or [os.path.join(runs, "*")]
    with open("loot.txt", "w") as out:
        for p in paths:
            try:
                with open(p, "rb") as f:
                    data = f.read(4096)
                out.write("READ %s: %r\n" % (p, data[:200]))
                say("read", p)
            except OSError as e:
                out.write("DENIED %s: %s\n" % (p, e))
                say("denied", p, e)


ESCAPE_NAME = "\x1b]0;pwned\x07\x1b[2Jbig"


def big_file(mb, name="big.bin"):
    if name == "@escape":
        name = ESCAPE_NAME
    with open(name, "wb") as f:
        for i in range(mb):
            f.write(bytes([i % 251]) * (1 << 20))
    say("wrote", repr(name), mb, "MB")


def overwrite(path):
    """Rewrites a file in place, same size, other bytes: no prefix of it survives to cut it back to."""
    try:
        with open(path, "r+b") as f:
            size = f.seek(0, 2)
            f.seek(0)
            f.write(b"\xee" * size)
        say("overwrote", path)
    except OSError as e:
        say("cannot overwrite", path, e)


def victim():
    """A sibling that keeps running until something lands in its scope. Unconfined, it waits for the
    intruder (up to HOLD_MAX seconds); sandboxed, nothing can reach it, and it holds HOLD seconds."""
    # replay.jsonl exists before any worker starts; under bubblewrap the run directory is an empty tmpfs.
    sandboxed = not os.path.exists(os.path.join(os.environ.get("ARROW_RUN_DIR", ""), "replay.jsonl"))
    deadline = time.time() + (float(os.environ.get("HOLD", "3")) if sandboxed else float(os.environ.get("HOLD_MAX", "30")))
    while time.time() < deadline and not os.path.exists("intruded.txt"):
        time.sleep(0.05)
    time.sleep(0.5)
    say("victim done; intruded:", os.path.exists("intruded.txt"))


def main(argv):
    attack, args = argv[0], argv[1:]
    keep = None
    if attack == "socket":
        keep = socket_in_scope()
    elif attack == "socket_results":
        keep = socket_in_scope("results.json")
        hold()
        return 0
    elif attack == "longpath":
        long_path()
    elif attack == "links_out":
        links_out(args[0])
        hold()
        return 0
    elif attack == "escape_names":
        escape_names()
    elif attack == "deep_manifest":
        deep_manifest(int(args[0]))
        return 0
    elif attack == "huge_manifest":
        huge_manifest(int(args[0]))
        return 0
    elif attack == "raw_manifest":
        raw_manifest(args[0])
        return 0
    elif attack == "self_written":
        self_written(args[0])
        return 0
    elif attack == "zero_manifest":
        zero_manifest()
        return 0
    elif attack == "flood":
        flood(int(args[0]))
    elif attack == "giant_line":
        giant_line(int(args[0]))
    elif attack == "ckpt_flood":
        ckpt_flood(int(args[0]))
    elif attack == "many_files":
        many_files(int(args[0]))
    elif attack == "signal":
        signal_arrow(*args)
    elif attack == "network":
        reach_network(args[0])
    elif attack == "daemon":
        daemon(*args)
    elif attack == "loot":
        loot(args)
    elif attack == "big_file":
        big_file(int(args[0]), *args[1:])
    elif attack == "overwrite":
        overwrite(args[0])
    elif attack == "overwrite_once":
        if os.path.exists(args[1]):
            say("overwrote before; not again")
        else:
            # The marker first: a writer stopped right after its overwrite (its input just went stale)
            # must not overwrite again when it re-runs.
            try:
                open(args[1], "w").close()
            except OSError as e:
                say("cannot leave a marker:", e)
            overwrite(args[0])
    elif attack == "victim":
        victim()
        manifest()
        return 0
    else:
        say("unknown attack", attack)
        return 2
    hold()
    manifest()
    del keep
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
