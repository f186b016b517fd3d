//! Errors that end a command with exit code 2 (bad input or environment).

/// An error that is the user's input or environment, not a divergence.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad command-line arguments or input files.
    #[error("{0}")]
    Input(String),
    /// The environment lacks something (Verilator, a compiler, a directory).
    #[error("{0}")]
    Env(String),
    /// Verilator (or the C++ compiler) rejected the RTL; the message is
    /// theirs, on one line.
    #[error("building the {unit} RTL from {dir} failed: {message}")]
    Build {
        /// Unit name.
        unit: String,
        /// RTL directory.
        dir: String,
        /// Verilator's (or the compiler's) own message.
        message: String,
    },
    /// The RTL's top-level ports differ from the unit's port table.
    #[error("the {unit} RTL in {dir} does not match the port table:\n  {}", differences.join("\n  "))]
    Ports {
        /// Unit name.
        unit: String,
        /// RTL directory.
        dir: String,
        /// One line per difference.
        differences: Vec<String>,
    },
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }
}
