//! The RTL build cache (`<cache>/rtl/`): what an entry keeps, the locks
//! that make two processes build an entry once and keep a prune from
//! removing an entry in use, and `gpucosim cache --list` / `--prune`.
//!
//! An entry `<unit>-<profile>[-trace][-cov][-bare][-quick]-<key16>/` keeps only
//! what a cached start reads: the library (`libgcsim.so`, or `gcbare` for
//! the bare benchmark loop), `entry.json` (what was built from what, and
//! how long it took) and `.use`, whose modification time is the entry's
//! last use. Verilator's generated C++, its objects and precompiled headers
//! (99 % of a build directory) are deleted once the library is linked:
//! nothing reads them again. A build always starts from a fresh directory
//! (the generated makefile names the temporary directory it was made in,
//! so it could not be rerun in the entry anyway). The parts worth reusing
//! are kept apart: Verilator's runtime objects in `<cache>/runtime/` (with
//! the precompiled `verilated.h` of small models' plain builds), and
//! the objects of the shim and the bare loop in `<cache>/objects/`
//! ([`USER_OBJECTS`]), which depend on a unit's ports but not on its RTL.
//!
//! Locks (`flock`, released by the kernel when a process dies, so a crashed
//! holder never blocks anyone):
//! - `rtl/.<entry>.lock`, exclusive: held by the process building the entry
//!   (and by a prune removing it); a second process wanting the same entry
//!   says that it waits, waits, and then starts from the cache. The holder
//!   writes its pid and host into the file for that message.
//! - `runtime/.<key>.lock`, exclusive: held by the build compiling
//!   Verilator's runtime objects of that key; a build needing them waits,
//!   then copies them.
//! - `<entry>/.use`, shared: held by every process that started from the
//!   entry until it exits; a prune removes an entry only if it can take
//!   both locks at once.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// An entry's description, written when it is built.
pub const META_FILE: &str = "entry.json";
/// The cache's directory of compiled shims and bare loops, one object per
/// key of what it is compiled from: its source, the model's public header
/// (the ports), Verilator and the flags. A build whose key is there copies
/// the object instead of compiling it.
pub const USER_OBJECTS: &str = "objects";
/// The file whose shared lock marks an entry in use and whose modification
/// time is its last use.
pub const USE_FILE: &str = ".use";
/// The files a finished entry holds besides its library.
const KEEP: &[&str] = &[META_FILE, USE_FILE];
/// The artifacts an entry may hold (the model library, the bare loop).
const ARTIFACTS: &[&str] = &["libgcsim.so", "gcbare"];
/// Prefix of an entry being removed by a prune.
const PRUNE_PREFIX: &str = ".prune-";

/// What an entry was built from and how; `entry.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryMeta {
    /// Unit name.
    pub unit: String,
    /// Profile (`gfx9`, `gfx11`).
    pub profile: String,
    /// `opt` or `quick` (`GPUCOSIM_BUILD`).
    pub flavor: String,
    /// Built with Verilator tracing of internal signals (`--trace-rtl`).
    pub trace: bool,
    /// `model` (the shim library the engine loads) or `bare` (the bare
    /// benchmark loop of `gpucosim bench`).
    pub artifact: String,
    /// Sources instrumented with every mutant (`gpucosim mutate`).
    pub instrumented: bool,
    /// Built with Verilator's code coverage (`--code-coverage`).
    #[serde(default)]
    pub coverage: bool,
    /// The full build key (hex SHA-256).
    pub key: String,
    /// The unit's RTL directory it was built from (the first build of this
    /// key: the key hashes the sources' content, not their location).
    pub rtl_dir: String,
    /// Content hash of the RTL sources (`rtlbuild::sources_hash`).
    pub sources_hash: String,
    /// The Verilator executable.
    pub verilator: String,
    /// When it was built (seconds since the epoch).
    pub built_unix: u64,
    /// Seconds the build took in all.
    pub seconds: f64,
    /// Seconds Verilator took to generate the C++.
    pub verilator_seconds: f64,
    /// Seconds make took to compile and link the C++.
    pub cxx_seconds: f64,
    /// The model's one translation unit was compiled with Verilator's
    /// `verilated.h` precompiled (the runtime's, `rtlbuild::PCH_FILE`).
    #[serde(default)]
    pub precompiled_header: bool,
}

impl EntryMeta {
    /// The flavour shown by `cache --list`: `opt` or `quick`, then `trace`,
    /// `coverage`, `bare`, `instrumented` where they apply.
    pub fn flavour(&self) -> String {
        let mut s = self.flavor.clone();
        for (on, word) in [
            (self.trace, "trace"),
            (self.coverage, "coverage"),
            (self.artifact == "bare", "bare"),
            (self.instrumented, "instrumented"),
        ] {
            if on {
                s.push(' ');
                s.push_str(word);
            }
        }
        s
    }
}

/// One entry of the RTL cache.
#[derive(Debug, Clone)]
pub struct CacheEntry {
    /// Directory name (`<unit>-<profile>[-trace][-cov][-bare][-quick]-<key16>`).
    pub name: String,
    /// Its path.
    pub path: PathBuf,
    /// Unit name.
    pub unit: String,
    /// Profile.
    pub profile: String,
    /// `opt`/`quick` and `trace`, `bare`, `instrumented` (see
    /// [`EntryMeta::flavour`]); entries built before `entry.json` existed
    /// say what their name says (an instrumented one is not told apart).
    pub flavour: String,
    /// Bytes on disk (allocated blocks, as `du` counts).
    pub bytes: u64,
    /// Bytes on disk that a cached start does not need (Verilator's build
    /// directory in entries built before entries were slimmed): what
    /// [`prune`] frees from an entry it keeps.
    pub spare_bytes: u64,
    /// Its last use (a start from it or its build).
    pub last_used: Option<SystemTime>,
    /// Its description, absent in entries built before it was recorded.
    pub meta: Option<EntryMeta>,
    /// The RTL directory it was last started from (`.use`), else the one
    /// it was built from (`entry.json`); absent in entries built before
    /// either was recorded.
    pub rtl_dir: Option<String>,
    /// Whether its library is there.
    pub complete: bool,
}

impl CacheEntry {
    /// Whether it is a build of mutant-instrumented sources, which
    /// `gpucosim mutate` writes to a new temporary directory each time.
    fn instrumented(&self) -> bool {
        self.meta.as_ref().is_some_and(|m| m.instrumented)
    }

    /// Whether the RTL directory it was last used with is known to be gone
    /// (a temporary tree, a deleted checkout).
    pub fn rtl_gone(&self) -> bool {
        self.rtl_dir
            .as_deref()
            .is_some_and(|d| !Path::new(d).is_dir())
    }

    /// What [`Prune::Superseded`] compares: unit, profile, flavour and the
    /// RTL directory (but for instrumented builds, whose directory is
    /// always a temporary one).
    fn group(&self) -> (String, String, String, Option<String>) {
        (
            self.unit.clone(),
            self.profile.clone(),
            self.flavour.clone(),
            if self.instrumented() {
                None
            } else {
                self.rtl_dir.clone()
            },
        )
    }
}

/// The RTL cache's entries, sorted by unit, profile, flavour and most
/// recent use first. A cache that does not exist has none.
pub fn list(cache: &Path) -> Result<Vec<CacheEntry>> {
    let dir = cache.join("rtl");
    let rd = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&dir, e)),
    };
    let mut out = Vec::new();
    for e in rd {
        let e = e.map_err(|e| Error::io(&dir, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if let Some(entry) = read_entry(&e.path(), &name) {
            out.push(entry);
        }
    }
    out.sort_by(|a, b| {
        (
            &a.unit,
            &a.profile,
            &a.flavour,
            std::cmp::Reverse(a.last_used),
        )
            .cmp(&(
                &b.unit,
                &b.profile,
                &b.flavour,
                std::cmp::Reverse(b.last_used),
            ))
    });
    Ok(out)
}

/// Reads one entry directory; `None` if its name is not an entry's.
fn read_entry(path: &Path, name: &str) -> Option<CacheEntry> {
    let meta: Option<EntryMeta> = std::fs::read_to_string(path.join(META_FILE))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let (unit, profile, flavour) = match &meta {
        Some(m) => (m.unit.clone(), m.profile.clone(), m.flavour()),
        None => parse_name(name)?,
    };
    let lib = ARTIFACTS.iter().map(|a| path.join(a)).find(|p| p.is_file());
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let last_used = mtime(&path.join(USE_FILE))
        .or_else(|| lib.as_deref().and_then(mtime))
        .or_else(|| mtime(path));
    let (bytes, spare_bytes) = entry_usage(path);
    let rtl_dir = std::fs::read_to_string(path.join(USE_FILE))
        .ok()
        .and_then(|t| t.lines().next().map(str::to_string))
        .filter(|d| !d.is_empty())
        .or_else(|| meta.as_ref().map(|m| m.rtl_dir.clone()));
    Some(CacheEntry {
        name: name.to_string(),
        path: path.to_path_buf(),
        unit,
        profile,
        flavour,
        bytes,
        spare_bytes,
        last_used,
        meta,
        rtl_dir,
        complete: lib.is_some(),
    })
}

/// Unit, profile and flavour from an entry's name
/// (`<unit>-<profile>[-trace][-cov][-bare][-quick]-<key16>`).
#[doc(hidden)]
pub fn parse_name(name: &str) -> Option<(String, String, String)> {
    let parts: Vec<&str> = name.split('-').collect();
    let (&key, rest) = parts.split_last()?;
    if rest.len() < 2 || key.len() != 16 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let flags = &rest[2..];
    if flags
        .iter()
        .any(|f| !matches!(*f, "trace" | "cov" | "bare" | "quick"))
    {
        return None;
    }
    let mut flavour = String::from(if flags.contains(&"quick") {
        "quick"
    } else {
        "opt"
    });
    for (f, word) in [("trace", "trace"), ("cov", "coverage"), ("bare", "bare")] {
        if flags.contains(&f) {
            flavour.push(' ');
            flavour.push_str(word);
        }
    }
    Some((rest[0].to_string(), rest[1].to_string(), flavour))
}

/// Bytes on disk under `path` (allocated blocks, as `du` counts them).
pub fn disk_usage(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(m) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    let own = m.blocks() * 512;
    if !m.is_dir() {
        return own;
    }
    let Ok(rd) = std::fs::read_dir(path) else {
        return own;
    };
    own + rd.flatten().map(|e| disk_usage(&e.path())).sum::<u64>()
}

/// An entry's bytes on disk, and those of them a cached start does not
/// need.
fn entry_usage(path: &Path) -> (u64, u64) {
    let total = disk_usage(path);
    let spare = std::fs::read_dir(path)
        .map(|rd| {
            rd.flatten()
                .filter(|e| !is_kept(&e.file_name().to_string_lossy()))
                .map(|e| disk_usage(&e.path()))
                .sum()
        })
        .unwrap_or(0);
    (total, spare)
}

fn is_kept(name: &str) -> bool {
    KEEP.contains(&name) || ARTIFACTS.contains(&name)
}

/// Deletes from the build directory `dir` everything a cached start does
/// not read: all but the artifacts, [`META_FILE`], [`USE_FILE`] and the
/// names in `also_keep`. Returns the bytes freed.
pub fn slim(dir: &Path, also_keep: &[&str]) -> Result<u64> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut freed = 0;
    for e in rd {
        let e = e.map_err(|e| Error::io(dir, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if is_kept(&name) || also_keep.contains(&name.as_str()) {
            continue;
        }
        let p = e.path();
        let bytes = disk_usage(&p);
        let r = if e.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        };
        r.map_err(|e| Error::io(&p, e))?;
        freed += bytes;
    }
    Ok(freed)
}

/// `flock` with `op`, retried when a signal interrupts it.
pub(crate) fn flock(f: &File, op: libc::c_int) -> std::io::Result<()> {
    loop {
        // SAFETY: flock on a file descriptor `f` owns.
        if unsafe { libc::flock(f.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Whether `e` is a non-blocking `flock`'s "held by another".
pub(crate) fn would_block(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::EWOULDBLOCK)
}

/// This machine's name, for the holder of a build lock.
fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return String::new();
    }
    let n = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// The holder of a build lock, as it wrote itself into the lock file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// Its process id.
    pub pid: u32,
    /// Its host, where that is not this one.
    pub host: Option<String>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.host {
            Some(h) => write!(f, "pid {} on {h}", self.pid),
            None => write!(f, "pid {}", self.pid),
        }
    }
}

/// The holder of the lock at `path`, which another process holds: it
/// writes itself into the file just after taking the lock, so a reader
/// that comes in between is given up to 200 ms for it (it waits for a
/// whole build next anyway).
fn wait_for_holder(path: &Path) -> Option<Holder> {
    for _ in 0..20 {
        if let Some(h) = read_holder(path) {
            return Some(h);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    read_holder(path)
}

fn read_holder(path: &Path) -> Option<Holder> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut it = text.split_whitespace();
    let pid = it.next()?.parse().ok()?;
    let host = it.next().map(str::to_string).filter(|h| *h != host_name());
    Some(Holder { pid, host })
}

/// The build lock of one cache entry (`rtl/.<entry>.lock`), held while
/// the entry is built or removed; released when dropped (or when the
/// process dies).
#[derive(Debug)]
pub struct KeyLock {
    file: Option<File>,
    path: PathBuf,
}

impl KeyLock {
    /// The lock file of entry `name` in the entries' directory `rtl`.
    pub fn path_of(rtl: &Path, name: &str) -> PathBuf {
        rtl.join(format!(".{name}.lock"))
    }

    /// Takes the build lock of entry `name` in `rtl`, waiting for another
    /// process that holds it; `on_wait` is told first, with that process
    /// when it is known. Where the file system has no locks (NFS mounted
    /// `nolock`) it goes on without one: the entry is then built twice but
    /// still renamed into place whole.
    pub fn take(rtl: &Path, name: &str, on_wait: impl FnOnce(Option<Holder>)) -> Result<KeyLock> {
        let path = Self::path_of(rtl, name);
        let mut on_wait = Some(on_wait);
        loop {
            let f = open_lock(&path)?;
            match flock(&f, libc::LOCK_EX | libc::LOCK_NB) {
                Ok(()) => {}
                Err(e) if would_block(&e) => {
                    if let Some(tell) = on_wait.take() {
                        tell(wait_for_holder(&path));
                    }
                    flock(&f, libc::LOCK_EX).map_err(|e| Error::io(&path, e))?;
                }
                Err(e) => {
                    tracing::debug!("no lock on {} ({e}); building without", path.display());
                    return Ok(KeyLock { file: None, path });
                }
            }
            if let Some(lock) = Self::claimed(f, &path) {
                return Ok(lock);
            }
        }
    }

    /// Takes the build lock of entry `name` in `rtl` if nobody holds it.
    pub fn try_take(rtl: &Path, name: &str) -> Result<Option<KeyLock>> {
        let path = Self::path_of(rtl, name);
        loop {
            let f = open_lock(&path)?;
            match flock(&f, libc::LOCK_EX | libc::LOCK_NB) {
                Ok(()) => {}
                Err(e) if would_block(&e) => return Ok(None),
                Err(e) => return Err(Error::io(&path, e)),
            }
            if let Some(lock) = Self::claimed(f, &path) {
                return Ok(Some(lock));
            }
        }
    }

    /// The lock, once `f` (locked) is still the file at `path`: a prune may
    /// have removed the file between our open and our lock, and a lock on
    /// a removed file excludes nobody.
    fn claimed(f: File, path: &Path) -> Option<KeyLock> {
        use std::io::Write as _;
        use std::os::unix::fs::MetadataExt;
        let same = match (f.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        };
        if !same {
            return None;
        }
        let mut w = &f;
        let _ = f.set_len(0);
        let _ = writeln!(w, "{} {}", std::process::id(), host_name());
        Some(KeyLock {
            file: Some(f),
            path: path.to_path_buf(),
        })
    }

    /// Removes the lock file, then releases the lock.
    fn remove(self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

pub(crate) fn open_lock(path: &Path) -> Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| Error::io(path, e))
}

/// The entries this process holds a use lock on (kept open until it exits).
static IN_USE: Mutex<Vec<(PathBuf, File)>> = Mutex::new(Vec::new());

/// Marks the entry `dir` used by this process until it exits (a shared
/// lock on its [`USE_FILE`]), used now (the file's modification time) and
/// last used with the RTL directory `rtl_dir` (the file's first line).
/// Returns whether `lib` is still there once the lock is held: `false`
/// when a prune removed the entry meanwhile. A cache this process cannot
/// write is used without the lock.
pub fn hold_use(dir: &Path, lib: &Path, rtl_dir: &Path) -> bool {
    let path = dir.join(USE_FILE);
    let Ok(mut held) = IN_USE.lock() else {
        return lib.is_file();
    };
    if held.iter().any(|(p, _)| *p == path) {
        return lib.is_file();
    }
    let f = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
    {
        Ok(f) => f,
        // The entry was removed (renamed away) by a prune.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
        Err(e) => {
            tracing::debug!(
                "{}: {e}; using the entry without a use lock",
                path.display()
            );
            return lib.is_file();
        }
    };
    if let Err(e) = flock(&f, libc::LOCK_SH) {
        tracing::debug!("no lock on {} ({e})", path.display());
    }
    // One write of one line: a reader takes the first line, whatever a
    // concurrent writer left after it.
    let line = format!(
        "{}\n",
        std::fs::canonicalize(rtl_dir)
            .unwrap_or_else(|_| rtl_dir.to_path_buf())
            .display()
    );
    let _ = f.set_len(0);
    let _ = std::os::unix::fs::FileExt::write_all_at(&f, line.as_bytes(), 0);
    let _ = f.set_modified(SystemTime::now());
    if !lib.is_file() {
        return false;
    }
    held.push((path, f));
    true
}

/// What [`prune`] removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prune {
    /// Every entry but the most recently used of its unit, profile,
    /// flavour and RTL directory (the builds of RTL, or of a Verilator,
    /// since changed), and every entry whose RTL directory is gone (the
    /// trees of single mutants `gpucosim mutate` builds, a deleted
    /// checkout). Instrumented builds are compared without their
    /// directory, always a temporary one.
    Superseded,
    /// Every entry not used for this long, newest of its kind or not.
    UnusedFor(Duration),
}

/// Why [`prune`] kept an entry it would have removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// A process is building it.
    Building,
    /// A running process started from it.
    InUse,
}

/// What [`prune`] did (or, dry, would do).
#[derive(Debug, Clone, Default)]
pub struct PruneReport {
    /// The entries removed.
    pub removed: Vec<CacheEntry>,
    /// Entries that were to be removed but are busy, and why.
    pub busy: Vec<(CacheEntry, Busy)>,
    /// Entries kept whose spare files (a build directory left by a
    /// gpucosim before entries were slimmed) were deleted, and the bytes.
    pub slimmed: Vec<(CacheEntry, u64)>,
    /// Leftovers removed: directories of builds or prunes killed mid-way,
    /// lock files of entries that are gone.
    pub leftovers: usize,
    /// Bytes freed in all.
    pub freed: u64,
    /// Nothing was removed: this is what would be.
    pub dry_run: bool,
}

/// Prunes the RTL cache under `cache` by `policy`. An entry is removed
/// only while holding its build lock and its use lock, so an entry being
/// built or used by a running process is kept (and reported busy). Kept
/// entries lose their spare files, and leftovers of builds killed mid-way
/// go too. With `dry_run` nothing is touched.
pub fn prune(cache: &Path, policy: Prune, dry_run: bool) -> Result<PruneReport> {
    let rtl = cache.join("rtl");
    let entries = list(cache)?;
    let now = SystemTime::now();
    let mut report = PruneReport {
        dry_run,
        ..PruneReport::default()
    };
    let mut seen = std::collections::BTreeSet::new();
    for e in entries {
        // `list` puts the most recently used of each group first; one
        // without its library supersedes nothing.
        let newest = e.complete && seen.insert(e.group());
        let doomed = match policy {
            Prune::Superseded => !newest || (e.rtl_gone() && !e.instrumented()),
            Prune::UnusedFor(age) => {
                !e.complete
                    || match e.last_used {
                        // A time ahead of ours (another host's clock) is recent.
                        Some(t) => now.duration_since(t).unwrap_or(Duration::ZERO) >= age,
                        None => true,
                    }
            }
        };
        if !doomed {
            if e.spare_bytes > 0 {
                let freed = if dry_run {
                    e.spare_bytes
                } else {
                    slim(&e.path, &[])?
                };
                report.freed += freed;
                report.slimmed.push((e, freed));
            }
            continue;
        }
        let outcome = if dry_run {
            busy(&rtl, &e)
        } else {
            remove_entry(&rtl, &e)?
        };
        match outcome {
            None => {
                report.freed += e.bytes;
                report.removed.push(e);
            }
            Some(busy) => report.busy.push((e, busy)),
        }
    }
    if !dry_run {
        report.leftovers = remove_leftovers(&rtl);
    }
    Ok(report)
}

/// Whether a process builds or uses entry `e`, without taking (or
/// creating) anything.
fn busy(rtl: &Path, e: &CacheEntry) -> Option<Busy> {
    let locked = |p: &Path, what: Busy| {
        let f = File::open(p).ok()?;
        match flock(&f, libc::LOCK_EX | libc::LOCK_NB) {
            Err(err) if would_block(&err) => Some(what),
            _ => None,
        }
    };
    locked(&KeyLock::path_of(rtl, &e.name), Busy::Building)
        .or_else(|| locked(&e.path.join(USE_FILE), Busy::InUse))
}

/// Removes entry `e` if nobody builds or uses it; else why not.
fn remove_entry(rtl: &Path, e: &CacheEntry) -> Result<Option<Busy>> {
    let Some(lock) = KeyLock::try_take(rtl, &e.name)? else {
        return Ok(Some(Busy::Building));
    };
    let use_path = e.path.join(USE_FILE);
    let user = match File::open(&use_path) {
        Ok(f) => Some(f),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(Error::io(&use_path, err)),
    };
    if let Some(f) = &user {
        match flock(f, libc::LOCK_EX | libc::LOCK_NB) {
            Ok(()) => {}
            Err(err) if would_block(&err) => return Ok(Some(Busy::InUse)),
            Err(err) => return Err(Error::io(&use_path, err)),
        }
    }
    // Out of sight first, in one rename, then deleted.
    let gone = rtl.join(format!("{PRUNE_PREFIX}{}-{}", e.name, std::process::id()));
    std::fs::rename(&e.path, &gone).map_err(|err| Error::io(&e.path, err))?;
    drop(user);
    lock.remove();
    std::fs::remove_dir_all(&gone).map_err(|err| Error::io(&gone, err))?;
    Ok(None)
}

/// Removes what builds and prunes killed mid-way left in `rtl`, and lock
/// files whose entry is gone; returns how many.
fn remove_leftovers(rtl: &Path) -> usize {
    let Ok(rd) = std::fs::read_dir(rtl) else {
        return 0;
    };
    let mut n = 0;
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let p = e.path();
        if name.starts_with(PRUNE_PREFIX) {
            if std::fs::remove_dir_all(&p).is_ok() {
                n += 1;
            }
        } else if name.starts_with(".build-") {
            if abandoned(&p) && std::fs::remove_dir_all(&p).is_ok() {
                n += 1;
            }
        } else if let Some(entry) = name.strip_prefix('.').and_then(|s| s.strip_suffix(".lock")) {
            if !rtl.join(entry).exists() {
                if let Ok(Some(lock)) = KeyLock::try_take(rtl, entry) {
                    // Built meanwhile? Then the lock file stays.
                    if !rtl.join(entry).exists() {
                        lock.remove();
                        n += 1;
                    }
                }
            }
        }
    }
    n
}

/// `bytes` for people: `812 B`, `1.3 KiB`, `136.0 MiB`, `2.1 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// How long ago `t` was, for people: `just now`, `5 min ago`, `3 h ago`,
/// `12 days ago`.
pub fn human_age(t: Option<SystemTime>, now: SystemTime) -> String {
    let Some(t) = t else {
        return "unknown".into();
    };
    let s = now.duration_since(t).map(|d| d.as_secs()).unwrap_or(0);
    match s {
        0..60 => "just now".into(),
        60..3600 => format!("{} min ago", s / 60),
        3600..86400 => format!("{} h ago", s / 3600),
        86400..172800 => "1 day ago".into(),
        _ => format!("{} days ago", s / 86400),
    }
}

/// The listing of `cache --list`: a header, a line per entry (unit,
/// profile, flavour, size, last use, the RTL it was built from, the
/// directory), then the totals.
pub fn format_list(cache: &Path, entries: &[CacheEntry]) -> String {
    let now = SystemTime::now();
    let rows: Vec<[String; 7]> = entries
        .iter()
        .map(|e| {
            let mut rtl = e.rtl_dir.clone().unwrap_or_else(|| "-".into());
            if let Some(m) = &e.meta {
                let hash: String = m.sources_hash.chars().take(12).collect();
                let _ = write!(rtl, " ({hash})");
            }
            if e.rtl_gone() {
                rtl.push_str(" (gone)");
            }
            let mut size = human_bytes(e.bytes);
            if !e.complete {
                size.push_str(" (no library)");
            }
            [
                e.unit.clone(),
                e.profile.clone(),
                e.flavour.clone(),
                size,
                human_age(e.last_used, now),
                rtl,
                e.name.clone(),
            ]
        })
        .collect();
    let head = [
        "UNIT",
        "PROFILE",
        "FLAVOUR",
        "SIZE",
        "LAST USED",
        "RTL (SOURCES HASH)",
        "ENTRY",
    ];
    let mut width = head.map(str::len);
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                l.push_str(c);
            } else {
                let _ = write!(l, "{c:<w$}  ", w = width[i]);
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(&head);
    for r in &rows {
        line(&r.each_ref().map(String::as_str));
    }
    let total: u64 = entries.iter().map(|e| e.bytes).sum();
    let spare: u64 = entries.iter().map(|e| e.spare_bytes).sum();
    let _ = write!(
        out,
        "{} {}, {} in {}",
        entries.len(),
        if entries.len() == 1 {
            "entry"
        } else {
            "entries"
        },
        human_bytes(total),
        cache.join("rtl").display()
    );
    if spare > 0 {
        let _ = write!(
            out,
            "; {} of it build files no start reads (`--prune` deletes them)",
            human_bytes(spare)
        );
    }
    out.push('\n');
    out
}

/// What `cache --prune` prints: a line per entry removed, kept busy or
/// slimmed, then the bytes freed.
pub fn format_prune(r: &PruneReport) -> String {
    let mut out = String::new();
    let verb = if r.dry_run { "would remove" } else { "removed" };
    let describe = |e: &CacheEntry| {
        format!(
            "{} {} {} ({}, used {})",
            e.unit,
            e.profile,
            e.flavour,
            human_bytes(e.bytes),
            human_age(e.last_used, SystemTime::now())
        )
    };
    for e in &r.removed {
        let _ = writeln!(out, "{verb} {}: {}", e.name, describe(e));
    }
    for (e, why) in &r.busy {
        let why = match why {
            Busy::Building => "a running gpucosim is building it",
            Busy::InUse => "a running gpucosim started from it",
        };
        let _ = writeln!(out, "kept {}: {why}", e.name);
    }
    for (e, bytes) in &r.slimmed {
        let _ = writeln!(
            out,
            "{} {} of build files from {}",
            if r.dry_run { "would delete" } else { "deleted" },
            human_bytes(*bytes),
            e.name
        );
    }
    if r.leftovers > 0 {
        let _ = writeln!(
            out,
            "removed {} leftover(s) of builds killed mid-way",
            r.leftovers
        );
    }
    let _ = writeln!(
        out,
        "{} {} {}, {} {}",
        verb,
        r.removed.len(),
        if r.removed.len() == 1 {
            "entry"
        } else {
            "entries"
        },
        if r.dry_run { "would free" } else { "freed" },
        human_bytes(r.freed)
    );
    out
}

/// A lock on a build's temporary directory, held while the build runs: a
/// directory whose lock can be taken belongs to a build that died.
#[doc(hidden)]
#[doc(hidden)]
pub struct BuildLock {
    _file: std::fs::File,
}

impl BuildLock {
    #[doc(hidden)]
    pub const NAME: &'static str = ".lock";

    /// Takes the lock of `dir`. The lock file is locked under another name
    /// and then renamed into place, so that no other process ever finds
    /// `dir`'s lock file unlocked while this build lives: between creating
    /// the file and locking it, a concurrent [`remove_stale`] would have
    /// taken the directory for a dead build's and removed it mid-build.
    #[doc(hidden)]
    pub fn take(dir: &Path) -> Result<BuildLock> {
        use std::os::fd::AsRawFd;
        let staged = dir.join(".lock-staged");
        let path = dir.join(Self::NAME);
        let f = std::fs::File::create(&staged).map_err(|e| Error::io(&staged, e))?;
        // SAFETY: flock on a file descriptor we own.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(Error::io(&staged, std::io::Error::last_os_error()));
        }
        std::fs::rename(&staged, &path).map_err(|e| Error::io(&path, e))?;
        Ok(BuildLock { _file: f })
    }

    /// Whether `dir` holds a lock no live process holds.
    pub(crate) fn abandoned(dir: &Path) -> bool {
        use std::os::fd::AsRawFd;
        let Ok(f) = std::fs::File::open(dir.join(Self::NAME)) else {
            // No lock yet: a build that is just starting, or one that died
            // before taking it; only the old ones are gone for sure.
            return std::fs::metadata(dir)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(3600));
        };
        // SAFETY: flock on a file descriptor we own; released when `f` drops.
        unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
    }
}

/// Whether the build directory `dir` belongs to a build that died: its
/// lock is held by no process.
pub(crate) fn abandoned(dir: &Path) -> bool {
    BuildLock::abandoned(dir)
}

/// Removes the temporary directories `prefix*` in `dir` that builds (or
/// installs) killed mid-way left behind.
pub fn remove_stale(dir: &Path, prefix: &str) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let p = e.path();
        if name.to_string_lossy().starts_with(prefix) && p.is_dir() && BuildLock::abandoned(&p) {
            tracing::info!(
                "removing {}, left by a build that did not finish",
                p.display()
            );
            let _ = std::fs::remove_dir_all(&p);
        }
    }
}
