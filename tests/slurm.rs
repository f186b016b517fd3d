//! The Slurm scripts of `dist/slurm/` on a real Slurm: a one-node cluster
//! (Debian's slurm-wlm 22.05: `munged`, `slurmctld`, `slurmd`) brought up
//! by the test in a temporary directory, on ports of its own, and torn down
//! when the test ends, passing or not. An array regression of 4 shards
//! merges into the report a single machine writes for the same seeds; a
//! task cancelled with `scancel` fails the merge, which names its shard.
//!
//! Without the Slurm and munge daemons (or when they cannot start here)
//! each test says so in one line and passes, unless
//! `GPUCOSIM_REQUIRE_SLURM=1` (CI) makes that a failure.

use crate::gpucosim_bin;
use gpucosim_tests::{quick, repo_root, BrokenFixture};
use rand::RngCore;
use serde_json::Value;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The programs the cluster and the scripts need.
const TOOLS: [&str; 8] = [
    "munged",
    "slurmctld",
    "slurmd",
    "sbatch",
    "squeue",
    "sinfo",
    "scontrol",
    "scancel",
];

/// `name` on PATH, or in the system directories daemons live in.
fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Fails under `GPUCOSIM_REQUIRE_SLURM=1`; otherwise says in one line, past
/// the test harness's capture, that the test did not run.
fn skip(test: &str, why: &str) {
    gpucosim_testkit::skip(
        "GPUCOSIM_REQUIRE_SLURM",
        test,
        &format!("the Slurm array regression: {why}"),
    );
}

/// A port no one listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free local port")
        .port()
}

/// The last `n` lines of a file, for failure messages.
fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    format!(
        "--- {} ---\n{}",
        path.display(),
        lines[lines.len().saturating_sub(n)..].join("\n")
    )
}

/// A one-node Slurm cluster of this test's own: its munge socket and key,
/// configuration, state, spool and logs in a temporary directory, its
/// controller and node daemon on free ports. Dropping it cancels its jobs
/// and stops the daemons it started.
struct Cluster {
    dir: tempfile::TempDir,
    conf: PathBuf,
    daemons: Vec<(&'static str, Child)>,
}

impl Cluster {
    /// Starts munged, slurmctld and slurmd, and waits for the node to be
    /// idle; `Err` says why that failed (with the daemons' logs).
    fn start() -> Result<Cluster, String> {
        if let Some(t) = TOOLS.iter().find(|t| find_tool(t).is_none()) {
            return Err(format!(
                "{t} is not installed (Debian: apt-get install slurmctld slurmd slurm-client munge)"
            ));
        }
        let dir = tempfile::Builder::new()
            .prefix("gpucosim-slurm-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let d = dir.path().to_path_buf();
        let conf = d.join("slurm.conf");
        let mut cluster = Cluster {
            dir,
            conf: conf.clone(),
            daemons: Vec::new(),
        };
        for sub in ["state", "spool"] {
            std::fs::create_dir(d.join(sub)).map_err(|e| e.to_string())?;
        }
        let key = d.join("munge.key");
        let mut bytes = vec![0u8; 1024];
        rand::thread_rng().fill_bytes(&mut bytes);
        std::fs::write(&key, bytes).map_err(|e| e.to_string())?;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| e.to_string())?;
        let socket = d.join("munge.socket");
        let host = short_hostname();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let (ctld_port, node_port) = (free_port(), free_port());
        let p = |name: &str| d.join(name).display().to_string();
        std::fs::write(
            &conf,
            format!(
                "# A one-node cluster for gpucosim's tests.
ClusterName=gpucosim
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={node_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={socket}
CredType=cred/munge
StateSaveLocation={state}
SlurmdSpoolDir={spool}
SlurmctldPidFile={ctld_pid}
SlurmdPidFile={node_pid}
SlurmctldLogFile={ctld_log}
SlurmdLogFile={node_log}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
",
                socket = socket.display(),
                state = p("state"),
                spool = p("spool"),
                ctld_pid = p("slurmctld.pid"),
                node_pid = p("slurmd.pid"),
                ctld_log = p("slurmctld.log"),
                node_log = p("slurmd.log"),
            ),
        )
        .map_err(|e| e.to_string())?;

        let mut munged = Command::new(find_tool("munged").unwrap());
        munged
            .arg("--foreground")
            .arg("--force")
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--pid-file={}", p("munged.pid")))
            .arg(format!("--log-file={}", p("munged.log")))
            .arg(format!("--seed-file={}", p("munged.seed")));
        cluster.spawn("munged", munged)?;
        let t0 = Instant::now();
        while !socket.exists() {
            if t0.elapsed() > Duration::from_secs(10) || cluster.exited().is_some() {
                return Err(cluster.why("munged did not create its socket"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut ctld = Command::new(find_tool("slurmctld").unwrap());
        ctld.arg("-D").arg("-i").arg("-f").arg(&conf);
        cluster.spawn("slurmctld", ctld)?;
        let mut node = Command::new(find_tool("slurmd").unwrap());
        node.arg("-D").arg("-f").arg(&conf).arg("-N").arg(&host);
        cluster.spawn("slurmd", node)?;

        // Up when the node is idle.
        let t0 = Instant::now();
        loop {
            if let Some(name) = cluster.exited() {
                return Err(cluster.why(&format!("{name} exited")));
            }
            let state = cluster.run("sinfo", &["-h", "-o", "%T"]);
            if String::from_utf8_lossy(&state.stdout).trim() == "idle" {
                return Ok(cluster);
            }
            if t0.elapsed() > Duration::from_secs(30) {
                return Err(cluster.why("the node was not idle within 30 s"));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn spawn(&mut self, name: &'static str, mut cmd: Command) -> Result<(), String> {
        let log = std::fs::File::create(self.dir.path().join(format!("{name}.out")))
            .map_err(|e| e.to_string())?;
        let child = cmd
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        self.daemons.push((name, child));
        Ok(())
    }

    /// The first daemon that has exited, if any.
    fn exited(&mut self) -> Option<&'static str> {
        self.daemons
            .iter_mut()
            .find_map(|(n, c)| c.try_wait().ok().flatten().map(|_| *n))
    }

    /// `what`, with the end of every daemon's output and log.
    fn why(&self, what: &str) -> String {
        let mut s = format!("{what}; logs in {}:", self.dir.path().display());
        for f in [
            "munged.out",
            "munged.log",
            "slurmctld.out",
            "slurmctld.log",
            "slurmd.out",
            "slurmd.log",
        ] {
            let p = self.dir.path().join(f);
            if p.exists() {
                s.push('\n');
                s.push_str(&tail(&p, 15));
            }
        }
        s
    }

    /// A Slurm client command on this cluster.
    fn command(&self, tool: &str) -> Command {
        let mut c = Command::new(find_tool(tool).unwrap_or_else(|| tool.into()));
        c.env("SLURM_CONF", &self.conf);
        c
    }

    fn run(&self, tool: &str, args: &[&str]) -> Output {
        self.command(tool)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"))
    }

    /// `scontrol show job ID` as `key=value` fields.
    fn job(&self, id: &str) -> Vec<(String, String)> {
        let out = self.run("scontrol", &["show", "job", "-o", id]);
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn field(&self, id: &str, key: &str) -> Option<String> {
        self.job(id)
            .into_iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Waits for job `id` to end; returns its state and exit code (`2:0`).
    fn wait(&self, id: &str, limit: Duration) -> (String, String) {
        let t0 = Instant::now();
        loop {
            let state = self.field(id, "JobState").unwrap_or_default();
            if !["PENDING", "RUNNING", "CONFIGURING", "COMPLETING", ""].contains(&state.as_str()) {
                return (state, self.field(id, "ExitCode").unwrap_or_default());
            }
            assert!(
                t0.elapsed() < limit,
                "job {id} still {state:?} after {limit:?}; queue:\n{}\n{}",
                String::from_utf8_lossy(&self.run("squeue", &[]).stdout),
                self.why("")
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Cancel what is left, give the tasks a moment to end, then stop
        // the daemons: the node daemon first, munged last.
        if self.exited().is_none() {
            let q = self.run("squeue", &["-h", "-o", "%A"]);
            let ids: Vec<String> = String::from_utf8_lossy(&q.stdout)
                .split_whitespace()
                .map(String::from)
                .collect();
            if !ids.is_empty() {
                let _ = self.command("scancel").args(&ids).status();
                let t0 = Instant::now();
                while t0.elapsed() < Duration::from_secs(10)
                    && !self.run("squeue", &["-h"]).stdout.is_empty()
                {
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
        }
        for (_, child) in self.daemons.iter_mut().rev() {
            // SAFETY: a signal to a child this process started and has not
            // yet reaped, so its pid is still its own.
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
            let t0 = Instant::now();
            while child.try_wait().ok().flatten().is_none() {
                if t0.elapsed() > Duration::from_secs(5) {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

fn short_hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    assert_eq!(rc, 0, "gethostname failed");
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]).into_owned();
    name.split('.').next().unwrap_or("localhost").to_string()
}

/// The cluster, or `None` after saying why the test is skipped.
fn cluster(test: &str) -> Option<Cluster> {
    match Cluster::start() {
        Ok(c) => Some(c),
        Err(why) => {
            skip(test, &why);
            None
        }
    }
}

/// Runs `dist/slurm/submit.sh ARGS` on the cluster (the tasks' RTL built
/// in the quick flavor, as in every test); returns the array's and the
/// merge's job ids.
fn submit(c: &Cluster, env: &[(&str, &str)], args: &[&str]) -> (String, String) {
    let mut cmd = quick(
        c.command(
            repo_root()
                .join("dist/slurm/submit.sh")
                .to_str()
                .expect("a UTF-8 path"),
        ),
    );
    cmd.env("GPUCOSIM", gpucosim_bin()).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("submit.sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "submit.sh failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = |what: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("submitted {what}: job ")))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("no {what} job id in: {stdout}"))
            .to_string()
    };
    (id("shards"), id("merge"))
}

/// A results file (or the coverage) as JSON without what differs from run
/// to run: the time a job took, where its bundle went and the report that
/// names it.
fn comparable(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut v: Value = serde_json::from_str(&text).unwrap();
    if let Some(jobs) = v.get_mut("jobs").and_then(Value::as_array_mut) {
        for j in jobs {
            let j = j.as_object_mut().unwrap();
            j.remove("seconds");
            j.remove("report");
            // Whether a job ran pipelined on a CPU an idle worker lent it
            // depends on when the workers ran out of jobs, not on the job.
            j.remove("pipelined");
            for key in ["bundle", "shrunk"] {
                if let Some(Value::String(b)) = j.get_mut(key) {
                    *b = Path::new(b.as_str())
                        .file_name()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                }
            }
        }
    }
    if let Some(o) = v.as_object_mut() {
        o.remove("shards");
    }
    v
}

/// JUnit test cases as (name, verdict: `pass`, `failure`, `error`, `skipped`).
fn junit_cases(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| {
            let verdict = n
                .children()
                .find(|k| k.is_element())
                .map_or("pass".to_string(), |k| k.tag_name().name().to_string());
            (n.attribute("name").unwrap().to_string(), verdict)
        })
        .collect()
}

#[test]
fn a_slurm_array_regression_merges_into_the_report_of_one_machine() {
    let test = "a_slurm_array_regression_merges_into_the_report_of_one_machine";
    let t0 = Instant::now();
    let Some(c) = cluster(test) else { return };
    let up = t0.elapsed();
    let out = c.dir.path().join("out");
    // 4 shards of 24 jobs: every unit and profile, seeds 1..4 (4 is a
    // stress variant).
    let plan = ["--seeds", "1..4", "--cycles", "2000"];
    let mut args = vec![
        "--shards",
        "4",
        "--cpus-per-task",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--",
    ];
    args.extend(plan);
    let (array, merge) = submit(&c, &[], &args);
    let (state, code) = c.wait(&merge, Duration::from_secs(600));
    let log = std::fs::read_to_string(out.join("logs/merge.out")).unwrap_or_default();
    assert_eq!(
        (state.as_str(), code.as_str()),
        ("COMPLETED", "0:0"),
        "merge job {merge}:\n{log}"
    );
    assert!(log.contains("24 jobs from 4 shard(s), 0 failed"), "{log}");
    assert!(log.contains("failure bundles: 0 in "), "{log}");
    for k in 1..=4 {
        assert_eq!(
            c.field(&format!("{array}_{k}"), "JobState").as_deref(),
            Some("COMPLETED"),
            "shard {k}:\n{}",
            tail(&out.join(format!("logs/shard-{k}.out")), 20)
        );
        for f in [
            format!("results/shard-{k}.json"),
            format!("junit/shard-{k}.xml"),
            format!("coverage/shard-{k}.json"),
        ] {
            assert!(out.join(&f).is_file(), "shard {k} wrote no {f}");
        }
    }
    let on_slurm = t0.elapsed();

    // The same regression on one machine.
    let single = c.dir.path().join("single");
    let st = quick(Command::new(gpucosim_bin()))
        .args(["-q", "regress"])
        .args(plan)
        .arg("--results")
        .arg(single.join("results.json"))
        .arg("--junit")
        .arg(single.join("junit.xml"))
        .arg("--coverage")
        .arg(single.join("coverage.json"))
        .arg("--bundles")
        .arg(single.join("failures"))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "the single-machine regress failed: {st}");
    let merged = comparable(&out.join("results.json"));
    let whole = comparable(&single.join("results.json"));
    assert_eq!(merged["jobs"].as_array().unwrap().len(), 24);
    assert_eq!(merged["jobs"], whole["jobs"], "the jobs differ");
    assert_eq!(
        merged["coverage"], whole["coverage"],
        "the coverage differs"
    );
    assert_eq!(merged, whole);
    assert_eq!(
        comparable(&out.join("coverage.json")),
        comparable(&single.join("coverage.json"))
    );
    let cases = junit_cases(&out.join("junit.xml"));
    assert_eq!(cases.len(), 24);
    assert_eq!(cases, junit_cases(&single.join("junit.xml")));

    // Judged for coverage, the merge fails as the single machine does:
    // 2,000 cycles leave waitcnt bins unhit.
    let mut shards: Vec<PathBuf> = (1..=4)
        .map(|k| out.join(format!("results/shard-{k}.json")))
        .collect();
    shards.sort();
    let judged = Command::new(gpucosim_bin())
        .args(["-q", "merge", "--require-coverage"])
        .args(&shards)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&judged.stdout);
    assert_eq!(judged.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL coverage.waitcnt."), "{text}");

    let _ = writeln!(
        std::io::stderr(),
        "note: {test}: cluster up in {:.1} s, array of 4 shards and merge in {:.1} s, \
         merged report equal to one machine's ({} jobs, same verdicts and coverage)",
        up.as_secs_f64(),
        (on_slurm - up).as_secs_f64(),
        cases.len()
    );
}

#[test]
fn a_cancelled_task_fails_the_merge_naming_its_shard() {
    let test = "a_cancelled_task_fails_the_merge_naming_its_shard";
    let Some(c) = cluster(test) else { return };
    // RTL that releases a wave one cycle early: every job diverges, so every
    // task that runs leaves failure bundles for the merge to collect.
    let (_, fixture) = BrokenFixture::all()
        .into_iter()
        .find(|(name, _)| name == "waitcnt_release_early")
        .expect("the waitcnt_release_early fixture");
    let rtl = fixture.apply(c.dir.path());
    let out = c.dir.path().join("out");
    let args = [
        "--shards",
        "4",
        "--cpus-per-task",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--seeds",
        "1..8",
        "--cycles",
        "2000",
        "--rtl",
        rtl.to_str().unwrap(),
    ];
    // Held, so that shard 3 is cancelled before it can start.
    let (array, merge) = submit(&c, &[("SBATCH_HOLD", "1")], &args);
    let cancelled = format!("{array}_3");
    let st = c.command("scancel").arg(&cancelled).status().unwrap();
    assert!(st.success());
    for id in [&array, &merge] {
        let o = c.run("scontrol", &["release", id]);
        assert!(
            o.status.success(),
            "scontrol release {id}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let (state, code) = c.wait(&merge, Duration::from_secs(600));
    let log = std::fs::read_to_string(out.join("logs/merge.out")).unwrap_or_default();
    // Cancelled while pending, the task never ran: Slurm keeps no record of
    // it (without accounting), and it wrote nothing.
    assert_eq!(c.field(&cancelled, "JobState"), None);
    assert!(!out.join("logs/shard-3.out").exists());
    assert_eq!(
        (state.as_str(), code.as_str()),
        ("FAILED", "2:0"),
        "merge job {merge}:\n{log}"
    );
    assert!(
        log.contains("error: incomplete merge: shard 3/4 is missing"),
        "{log}"
    );
    assert!(log.contains("merge exit code: 2"), "{log}");
    assert!(!out.join("results/shard-3.json").exists());

    // The merged reports are written all the same: shard 3's jobs (seeds 3
    // and 7) as skipped, the others as the divergences they are, each with
    // its bundle collected in the output directory.
    let cases = junit_cases(&out.join("junit.xml"));
    let verdict = |name: &str| {
        cases
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(cases.len(), 8, "{cases:?}");
    for name in ["waitcnt.gfx9.3", "waitcnt.gfx9.7"] {
        assert_eq!(verdict(name), Some("skipped"), "{cases:?}");
    }
    let failed: Vec<&str> = cases
        .iter()
        .filter(|(_, v)| v == "failure")
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(failed.len(), 6, "{cases:?}");
    assert!(log.contains("failure bundles: 6 in "), "{log}");
    for name in failed {
        let bundle = out.join("failures").join(name);
        assert!(bundle.join("repro.json").is_file(), "no bundle {name}");
        assert!(log.contains(&format!("  {name}\n")), "{log}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "note: {test}: shard 3/4 cancelled with scancel; the merge failed (exit 2) naming it"
    );
}
