"""catalyst-manager.py [OPTIONS] [-- COMMAND...]

Deploys catalyst-executor (executor-server under the name `make install` also
gives it) with Catalyst's own deployment manager, catalyst.executor.Executor
(fetched by `make catalyst-manager`; on PYTHONPATH), runs COMMAND with
EXECUTOR_ADDRESS set to the address the manager reports, stops the executor,
and prints what happened, one line a step, for FileCheck:

  executor: catalyst-executor --bind=127.0.0.1:PORT [--plugin=...]
            (the command line the manager started, from /proc; paths cut to
            their last component)
  ready at 127.0.0.1:PORT
  command exited with status N
  stopped: no executor process is left, nothing answers at 127.0.0.1:PORT
  workspace removed                       (with --host and --workspace)
  launch failed: MESSAGE                  (and exit status 1)

Options:
  --path DIR          put DIR first on PATH, where the manager looks for
                      catalyst-executor (and ssh, scp) (repeatable)
  --host HOST         remote mode: over ssh to HOST (ssh and scp as found on PATH)
  --workspace DIR     the remote workspace (pinned: removed here afterwards
                      with the manager's remove_workspace)
  --deploy FILE       copied into the workspace by the manager (scp)
  --plugin LIB        passed as plugins=[LIB] (repeatable)
  --port-busy         pins port= to a port this script holds (bound and
                      listening): the manager must see the executor fail on it
                      and try another
  --strict            with --port-busy: commit to the pinned port first
                      (Executor.resolve()), so that no other port is tried
  --env K=V           passed as env= (repeatable)

The manager's log lines (its "port N busy, trying another" among them) and
the executor's output, prefixed "[executor]", go to stderr. The manager writes
a log file into the current directory.
"""

import argparse
import logging
import os
import socket
import subprocess
import sys
import time

from catalyst.executor import Executor


def executor_command_lines(port):
    """The command lines (argv lists) of the catalyst-executor processes
    serving `port`, and their pids. All namespaces of the test share one pid
    namespace, so a remote one is found as well."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = [arg.decode() for arg in f.read().split(b"\0") if arg]
        except OSError:
            continue
        if argv and os.path.basename(argv[0]) == "catalyst-executor" and f"--bind=127.0.0.1:{port}" in argv:
            found.append((int(entry), argv))
    return found


def children(parent):
    """The processes whose parent is `parent`: a server's workers."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == parent:
                    found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


def alive(pid):
    """Whether `pid` runs (a zombie is not running)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def answers(address):
    host, port = address.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
        return True
    except OSError:
        return False


def eventually(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def close_ssh_masters():
    """Ends the ssh connection masters the manager leaves for reuse
    (ControlPersist 30 s): in the test's namespace they would outlive it."""
    control_dir = os.path.join(os.path.expanduser("~"), ".catalyst", "cm")
    if not os.path.isdir(control_dir):
        return
    for name in os.listdir(control_dir):
        path = os.path.join(control_dir, name)
        subprocess.run(["ssh", "-o", f"ControlPath={path}", "-O", "exit", "executor-host"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--path", action="append", default=[])
    parser.add_argument("--host")
    parser.add_argument("--workspace")
    parser.add_argument("--deploy", action="append", default=[])
    parser.add_argument("--plugin", action="append", default=[])
    parser.add_argument("--port-busy", action="store_true")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    os.environ["PATH"] = os.pathsep.join(args.path + [os.environ["PATH"]])
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")

    held = None
    port = None
    if args.port_busy:
        held = socket.create_server(("127.0.0.1", 0))
        port = held.getsockname()[1]
        print(f"holding port {port}", flush=True)
    executor = Executor(
        host=args.host,
        workspace=args.workspace,
        deploy=args.deploy or None,
        plugins=args.plugin or None,
        port=port,
        env=dict(kv.split("=", 1) for kv in args.env) or None,
        ready_timeout=30,
    )
    try:
        try:
            if args.strict:
                executor.resolve()
            executor.launch()
        except RuntimeError as error:
            print(f"launch failed: {error}", flush=True)
            return 1
        address = executor.address
        bound = int(address.rsplit(":", 1)[1])
        processes = executor_command_lines(bound)
        for _, argv in processes:
            shown = [os.path.basename(argv[0])] + [
                arg.split("=", 1)[0] + "=" + os.path.basename(arg.split("=", 1)[1]) if arg.startswith("--plugin=") else arg
                for arg in argv[1:]
            ]
            print("executor: " + " ".join(shown), flush=True)
        print(f"ready at {address}", flush=True)
        if args.command:
            status = subprocess.run(args.command, env=dict(os.environ, EXECUTOR_ADDRESS=address)).returncode
            print(f"command exited with status {status}", flush=True)
        # The servers and their workers (warm ones, and those of sessions).
        pids = [pid for pid, _ in processes]
        pids += [worker for pid in pids for worker in children(pid)]
        executor.stop()
        gone = eventually(lambda: not any(alive(pid) for pid in pids))
        silent = eventually(lambda: not answers(address))
        if gone and silent:
            print(f"stopped: no executor process is left, nothing answers at {address}", flush=True)
        else:
            print(f"stop left: processes {[pid for pid in pids if alive(pid)]}, answering {not silent}")
        if args.host and args.workspace:
            Executor(host=args.host, workspace=args.workspace).remove_workspace(force=True)
            print("workspace removed" if not os.path.exists(args.workspace) else "workspace left", flush=True)
    finally:
        executor.stop()
        close_ssh_masters()
        if held is not None:
            held.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
