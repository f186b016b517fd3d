//! Writing result files: atomically, with the permissions the umask gives
//! any other file, and with every location checked before a run starts, so
//! that hours of simulation never end in "cannot write".

use crate::error::{Error, Result};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// A temporary file in `dir`, created with mode 0666 less the umask (as
/// `File::create` would; tempfile's default is 0600).
pub fn temp_file_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(".gpucosim-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
}

/// A temporary directory `prefix*` in `dir`, created with mode 0777 less the
/// umask (as `create_dir` would; tempfile's default is 0700).
pub fn temp_dir_in(dir: &Path, prefix: &str) -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o777))
        .tempdir_in(dir)
}

/// `e` without the temporary file's name that tempfile adds to it (`… at
/// path "/dir/.gpucosim-38nfjb"`): errors name the path the user gave.
pub fn without_temp_name(e: std::io::Error) -> std::io::Error {
    if e.get_ref().is_none() {
        return e;
    }
    let text = e.to_string();
    match text.rfind(" at path \"") {
        Some(at) => std::io::Error::new(e.kind(), text[..at].to_string()),
        None => e,
    }
}

fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, renamed into place, so readers never see a partial file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent_of(path);
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut tmp = temp_file_in(dir).map_err(|e| Error::io(dir, without_temp_name(e)))?;
    tmp.write_all(bytes).map_err(|e| Error::io(path, e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    tmp.persist(path)
        .map_err(|e| Error::io(path, without_temp_name(e.error)))?;
    tracing::debug!("wrote {} ({} bytes)", path.display(), bytes.len());
    Ok(())
}

fn probe(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut f = temp_file_in(dir).map_err(without_temp_name)?;
    f.write_all(b"gpucosim")?;
    f.as_file().sync_all()?;
    f.close()
}

/// Checks, before a run, that files can be created in directory `dir`
/// (creating it if needed): `what` names the option in the error.
pub fn probe_dir(dir: &Path, what: &str) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(Error::Env(format!(
            "{what} {}: is not a directory",
            dir.display()
        )));
    }
    probe(dir).map_err(|e| Error::Env(format!("{what} {}: cannot write there: {e}", dir.display())))
}

/// Whether paths `a` and `b` name one file: both resolved through their
/// directories' canonical paths (a file need not exist yet), so that
/// `./x`, `x` and a link to `x` are one.
pub fn same_file(a: &Path, b: &Path) -> bool {
    fn resolved(p: &Path) -> Option<std::path::PathBuf> {
        std::fs::canonicalize(p).ok().or_else(|| {
            let dir = std::fs::canonicalize(parent_of(p)).ok()?;
            Some(dir.join(p.file_name()?))
        })
    }
    a == b || matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
}

/// Checks, before a run, that output `out` (option `what`) is not the
/// input file `input`, which writing it would replace.
pub fn refuse_overwrite(out: &Path, what: &str, input: &Path) -> Result<()> {
    if same_file(out, input) {
        return Err(Error::Input(format!(
            "{what} {}: is the input {}; it would be overwritten",
            out.display(),
            input.display()
        )));
    }
    Ok(())
}

/// Checks, before a run, that file `path` can be written: its directory
/// takes new files and `path` is not a directory.
pub fn probe_file(path: &Path, what: &str) -> Result<()> {
    if path.as_os_str() == "-" {
        // Standard output carries the command's own report.
        return Err(Error::Input(format!(
            "{what} -: name a file (standard output carries the command's report)"
        )));
    }
    if path.is_dir() {
        return Err(Error::Env(format!(
            "{what} {}: is a directory",
            path.display()
        )));
    }
    probe(parent_of(path)).map_err(|e| {
        Error::Env(format!(
            "{what} {}: cannot write there: {e}",
            path.display()
        ))
    })
}
