#!/usr/bin/env python3
"""A real Slurm, started here, runs gpuvp's sweeps and regressions (docs/cluster.md).

    check_slurm.py GPUVP SOURCE_DIR [--keep DIR]

Starts a single-node cluster from Debian's packages in a temporary folder: munged with a new
key, slurmctld and slurmd on localhost on free ports, from a generated slurm.conf (the recipe
docs/cluster.md gives). Then, from SOURCE_DIR:
  1. a sweep (2 axes, 6 points, some failing their expectations) run locally and through
     Slurm (--slurm, waiting): the same exit code, the same failures on stderr, and sweep.csv,
     locks.csv, report.html and every point's results.json byte for byte the same (host times
     aside);
  2. a regression of scenarios/ locally and through Slurm: the JUnit XML and the CSV the same
     but for host times;
  3. a sweep submitted with --no-wait, joined by `gpuvp collect`: the same outputs;
  4. a point whose task left no result: collect names it and exits 2; collect
     --resubmit-failed runs that point alone (the others' results untouched), and the outputs
     are the local run's again;
  5. a sweep interrupted after its submission and run again: it carries on from its directory
     (one job, no point run twice) to the same outputs;
  6. a gpuvp the nodes cannot run (--slurm-gpuvp): the job script says so in the task's log
     and collect reports each point with its task's state.
Stops the daemons it started. Exit 0 when every check holds, 1 otherwise; 77 (skipped) when
Slurm or munge is not installed, unless CI=true, where that is a failure.
"""
import argparse
import getpass
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

failures = []
ENV = dict(os.environ, SC_COPYRIGHT_MESSAGE="DISABLE")


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- the cluster ---------------------------------------------------------------------------

class Cluster:
    def __init__(self, work):
        self.work, self.pids = work, []

    def start(self):
        w = self.work
        for d in ("munge", "state", "spool", "log"):
            os.makedirs(os.path.join(w, d), exist_ok=True)
        os.chmod(os.path.join(w, "munge"), 0o700)
        key = os.path.join(w, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        sock = os.path.join(w, "munge", "munge.sock")
        subprocess.run(["munged", "--key-file=" + key, "--socket=" + sock, "--pid-file=" + os.path.join(w, "munge", "munged.pid"),
                        "--log-file=" + os.path.join(w, "munge", "munged.log"),
                        "--seed-file=" + os.path.join(w, "munge", "munged.seed"), "--force"], check=True)
        self.pids.append(os.path.join(w, "munge", "munged.pid"))
        host, user, cpus = socket.gethostname().split(".")[0], getpass.getuser(), os.cpu_count() or 1
        conf = os.path.join(w, "slurm.conf")
        with open(conf, "w") as f:
            f.write("\n".join([
                "ClusterName=gpuvptest", "SlurmctldHost=%s(127.0.0.1)" % host, "SlurmUser=" + user, "SlurmdUser=" + user,
                "AuthType=auth/munge", "CredType=cred/munge", "AuthInfo=socket=" + sock,
                "SlurmctldPort=%d" % free_port(), "SlurmdPort=%d" % free_port(),
                "StateSaveLocation=" + os.path.join(w, "state"), "SlurmdSpoolDir=" + os.path.join(w, "spool"),
                "SlurmctldPidFile=" + os.path.join(w, "slurmctld.pid"), "SlurmdPidFile=" + os.path.join(w, "slurmd.pid"),
                "SlurmctldLogFile=" + os.path.join(w, "log", "slurmctld.log"),
                "SlurmdLogFile=" + os.path.join(w, "log", "slurmd.log"),
                "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "JobAcctGatherType=jobacct_gather/none",
                "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none", "MpiDefault=none",
                "SchedulerType=sched/backfill", "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
                "ReturnToService=2", "MinJobAge=600",
                "NodeName=%s NodeAddr=127.0.0.1 CPUs=%d State=UNKNOWN" % (host, cpus),
                "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP", ""]))
        ENV["SLURM_CONF"] = conf
        for daemon, pid in (("slurmctld", "slurmctld.pid"), ("slurmd", "slurmd.pid")):
            subprocess.run([daemon], env=ENV, check=True)
            self.pids.append(os.path.join(w, pid))
        for _ in range(60):  # the node up and idle
            r = subprocess.run(["sinfo", "-h", "-o", "%T"], env=ENV, capture_output=True, text=True)
            if r.returncode == 0 and r.stdout.strip() in ("idle", "mixed", "allocated"):
                return True
            time.sleep(0.5)
        print(open(os.path.join(w, "log", "slurmctld.log")).read()[-3000:])
        return False

    def stop(self):
        subprocess.run(["scontrol", "shutdown"], env=ENV, capture_output=True)
        for path in reversed(self.pids):
            try:
                pid = int(open(path).read().split()[0])
                os.kill(pid, signal.SIGTERM)
                for _ in range(50):
                    os.kill(pid, 0)
                    time.sleep(0.1)
            except (OSError, ValueError, IndexError):
                pass


# --- gpuvp ---------------------------------------------------------------------------------

def gpuvp(args, cwd, **kw):
    r = subprocess.run([GPUVP] + args, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=900, **kw)
    return r.returncode, r.stdout, r.stderr


def results_without_host_time(path):
    with open(path) as f:
        r = json.load(f)
    r.pop("host_seconds", None)
    for v in r.get("variants", []):
        v.get("results", {}).pop("host_seconds", None)
    return r


def same_sweep(label, local, other):
    for name in ("sweep.csv", "locks.csv", "draws.csv", "report.html"):
        a, b = os.path.join(local, name), os.path.join(other, name)
        if os.path.exists(a) or os.path.exists(b):
            check(os.path.exists(b) and os.path.exists(a) and open(a, "rb").read() == open(b, "rb").read(),
                  "%s: %s byte for byte as the local run's" % (label, name))
    points = sorted(d for d in os.listdir(local) if d.startswith("point-"))
    same = all(os.path.exists(os.path.join(other, p, "results.json")) and
               results_without_host_time(os.path.join(local, p, "results.json")) ==
               results_without_host_time(os.path.join(other, p, "results.json")) for p in points)
    check(same and len(points) > 0, "%s: every point's results.json as the local run's, host time aside (%d points)"
          % (label, len(points)))


def failure_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("gpuvp: scenarios/")]


SWEEP = ["sweep", "scenarios/lock-contention.yaml", "--set", "policy.lock=spin,priority",
         "--set", "platform.sms=1,2,4", "--quiet"]


def main():
    global GPUVP
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gpuvp")
    ap.add_argument("source")
    ap.add_argument("--keep", help="copy the work folder (outputs, logs, slurm.conf) here")
    args = ap.parse_args()
    GPUVP = os.path.abspath(args.gpuvp)
    missing = [p for p in ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo") if not shutil.which(p)]
    if missing:
        print("Slurm is not installed here (%s not found): run scripts/install-deps (slurm-wlm, munge)" % ", ".join(missing))
        return 1 if os.environ.get("CI") == "true" else 77

    work = tempfile.mkdtemp(prefix="gpuvp-slurm-")
    cluster = Cluster(os.path.join(work, "cluster"))
    src = os.path.abspath(args.source)
    try:
        if not check(cluster.start(), "a single-node Slurm (munged, slurmctld, slurmd) starts and its node is up"):
            return 1
        out = lambda name: os.path.join(work, name)  # noqa: E731

        # 1. A sweep, locally and through Slurm.
        t = time.time()
        lrc, _, lerr = gpuvp(SWEEP + ["--out", out("local"), "-j", "2"], src)
        local_s = time.time() - t
        t = time.time()
        src_, sout, serr = gpuvp(SWEEP + ["--out", out("slurm"), "--slurm"], src)
        print("      local %.1f s, through Slurm %.1f s" % (local_s, time.time() - t))
        check(lrc == 1 and src_ == lrc, "sweep: the same exit code locally and through Slurm (%d, %d)" % (lrc, src_))
        check("submitted job" in serr, "sweep: it says which job it submitted (%s)" % serr.splitlines()[0] if serr else "")
        check(failure_lines(serr) == failure_lines(lerr) and failure_lines(lerr),
              "sweep: the same failures on stderr (%d lines)" % len(failure_lines(lerr)))
        same_sweep("sweep --slurm", out("local"), out("slurm"))
        batch = json.load(open(os.path.join(out("slurm"), "slurm", "batch.json")))
        check(len(batch["jobs"]) == 1 and batch["shards"] == 6, "sweep: one job array of 6 tasks")

        # 2. A regression of scenarios/, locally and through Slurm.
        lrc, _, _ = gpuvp(["regress", "scenarios", "--quiet", "-j", "2", "--out", out("rl"), "--junit", out("rl.xml"),
                           "--csv", out("rl.csv")], src)
        rrc, _, rerr = gpuvp(["regress", "scenarios", "--quiet", "--slurm", "--slurm-chunk", "3", "--out", out("rs"),
                              "--junit", out("rs.xml"), "--csv", out("rs.csv")], src)
        check(rrc == lrc, "regress: the same exit code locally and through Slurm (%d, %d)" % (lrc, rrc))
        no_time = lambda s: re.sub(r'time="[0-9.]+"', 'time=""', s)  # noqa: E731
        xml_same = os.path.exists(out("rs.xml")) and no_time(open(out("rl.xml")).read()) == no_time(open(out("rs.xml")).read())
        check(xml_same, "regress: the JUnit XML as the local run's, host times aside")

        def csv_rows(path):
            rows = [l.split(",") for l in open(path).read().splitlines()]
            col = rows[0].index("host_seconds") if rows and "host_seconds" in rows[0] else None
            return [r[:col] + r[col + 1:] if col is not None else r for r in rows]
        check(os.path.exists(out("rs.csv")) and csv_rows(out("rl.csv")) == csv_rows(out("rs.csv")),
              "regress: the CSV as the local run's, host times aside")

        # 3. --no-wait, then collect.
        rc, _, err = gpuvp(SWEEP + ["--out", out("later"), "--slurm", "--no-wait", "--slurm-opt", "--time=00:10:00 --nice=1"], src)
        check(rc == 0 and "gpuvp collect" in err, "sweep --no-wait: returns once submitted, naming collect")
        batch = json.load(open(os.path.join(out("later"), "slurm", "batch.json")))
        r = subprocess.run(["squeue", "-h", "-r", "-t", "all", "-j", batch["jobs"][0], "-o", "%l %y"], env=ENV,
                           capture_output=True, text=True)
        check(batch["sbatch"] == ["--time=00:10:00", "--nice=1"] and "10:00 1" in r.stdout,
              "--slurm-opt: the options reach sbatch, split at spaces (%s; squeue: %s)" % (batch["sbatch"], r.stdout.split("\n")[0]))
        rc, _, err = gpuvp(["collect", out("later"), "--quiet"], src)
        check(rc == 1, "collect: waits and joins, the sweep's exit code (%d)" % rc)
        same_sweep("collect", out("local"), out("later"))

        # 4. A point without its result: reported, then resubmitted alone.
        lost = os.path.join(out("later"), "point-3")
        for f in ("exit_code", "results.json"):
            os.remove(os.path.join(lost, f))
        kept = {p: os.stat(os.path.join(out("later"), p, "results.json")).st_mtime_ns
                for p in os.listdir(out("later")) if p.startswith("point-") and p != "point-3"}
        rc, _, err = gpuvp(["collect", out("later"), "--quiet"], src)
        check(rc == 2 and "platform.sms=1: no result: Slurm task 3 of job" in err and "--resubmit-failed" in err,
              "collect: a point without a result is named with its task, exit 2 (%s)"
              % ([l for l in err.splitlines() if "no result" in l][:1] or ["none"])[0][:160])
        rc, _, err = gpuvp(["collect", out("later"), "--resubmit-failed", "--quiet"], src)
        check(rc == 1 and os.path.exists(os.path.join(lost, "results.json")),
              "collect --resubmit-failed: the lost point runs again (exit %d)" % rc)
        check(all(os.stat(os.path.join(out("later"), p, "results.json")).st_mtime_ns == m for p, m in kept.items()),
              "collect --resubmit-failed: no other point ran again")
        same_sweep("resubmitted", out("local"), out("later"))

        # 5. Interrupted on the submitting machine, then run again.
        p = subprocess.Popen([GPUVP] + SWEEP + ["--out", out("again"), "--slurm"], cwd=src, env=ENV,
                             stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        for line in p.stderr:
            if "waiting for the tasks" in line:
                p.send_signal(signal.SIGINT)
                break
        p.wait(timeout=60)
        rc, _, err = gpuvp(SWEEP + ["--out", out("again"), "--slurm"], src)
        batch = json.load(open(os.path.join(out("again"), "slurm", "batch.json")))
        check(rc == 1 and "holds this batch already" in err and len(batch["jobs"]) == 1,
              "sweep run again after an interruption: carries on from its directory, no second job (jobs %s)" % batch["jobs"])
        same_sweep("resumed", out("local"), out("again"))

        # 6. A gpuvp the nodes cannot run.
        rc, _, err = gpuvp(["sweep", "scenarios/default.yaml", "--set", "platform.sms=1,2", "--quiet", "--out", out("bad"),
                            "--slurm", "--slurm-gpuvp", "/nonexistent/bin/gpuvp"], src)
        logs = os.path.join(out("bad"), "slurm", "logs")
        said = "".join(open(os.path.join(logs, f)).read() for f in os.listdir(logs)) if os.path.isdir(logs) else ""
        check("is not a program this node can run" in said, "job script: the task's log says the node cannot run gpuvp")
        check(rc == 2 and err.count("no result: Slurm task") == 2 and "FAILED" in err,
              "a task that failed: each of its points reported with the task's state, exit 2 (exit %d)" % rc)
    finally:
        cluster.stop()
        if args.keep:
            shutil.copytree(work, args.keep, dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)
    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
