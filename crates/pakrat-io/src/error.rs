use std::path::PathBuf;

/// Result alias used by every pakrat reader.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One error type for all formats. Every parse error carries the absolute
/// file offset where the problem was found and a description of what was
/// expected there; [`Error::in_file`] adds the file name.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input ended before a value could be read.
    #[error(
        "at offset {offset:#x}: expected {what} ({needed} bytes) but only {available} bytes remain"
    )]
    Truncated {
        /// Absolute offset of the value.
        offset: u64,
        /// What was being read.
        what: String,
        /// Bytes the value needs.
        needed: u64,
        /// Bytes that remain in the input.
        available: u64,
    },
    /// The bytes were read but do not make sense.
    #[error("at offset {offset:#x}: {what}")]
    Invalid {
        /// Absolute offset of the bad value.
        offset: u64,
        /// What was expected and what was found.
        what: String,
    },
    /// A valid file of a kind or version this build cannot read exactly.
    #[error("at offset {offset:#x}: unsupported: {what}")]
    Unsupported {
        /// Absolute offset of the field that decided it.
        offset: u64,
        /// What is not supported (version, licensee, method...).
        what: String,
    },
    /// A problem that is not tied to a byte offset (bad key, missing companion file...).
    #[error("{0}")]
    Other(String),
    /// An I/O error on a named path.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Any of the above, inside a named file.
    #[error("{path}: {source}")]
    InFile {
        /// The file being read.
        path: PathBuf,
        /// What went wrong in it.
        #[source]
        source: Box<Error>,
    },
}

impl Error {
    /// The same error with `context` put before what it says (`Struct.Field
    /// (Type): expected …`); offsets and kind are kept.
    pub fn context(self, context: &str) -> Self {
        match self {
            Error::Truncated {
                offset,
                what,
                needed,
                available,
            } => Error::Truncated {
                offset,
                what: format!("{context}: {what}"),
                needed,
                available,
            },
            Error::Invalid { offset, what } => Error::Invalid {
                offset,
                what: format!("{context}: {what}"),
            },
            Error::Unsupported { offset, what } => Error::Unsupported {
                offset,
                what: format!("{context}: {what}"),
            },
            Error::Other(what) => Error::Other(format!("{context}: {what}")),
            e => e,
        }
    }

    /// Shorthand for [`Error::Invalid`].
    pub fn invalid(offset: u64, what: impl Into<String>) -> Self {
        Error::Invalid {
            offset,
            what: what.into(),
        }
    }

    /// Shorthand for [`Error::Unsupported`].
    pub fn unsupported(offset: u64, what: impl Into<String>) -> Self {
        Error::Unsupported {
            offset,
            what: what.into(),
        }
    }

    /// Shorthand for an I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Attach a file name (no-op if the error already names one).
    pub fn in_file(self, path: impl Into<PathBuf>) -> Self {
        match self {
            e @ (Error::InFile { .. } | Error::Io { .. }) => e,
            e => Error::InFile {
                path: path.into(),
                source: Box::new(e),
            },
        }
    }

    /// The byte offset the error refers to, if any.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Truncated { offset, .. }
            | Error::Invalid { offset, .. }
            | Error::Unsupported { offset, .. } => Some(*offset),
            Error::InFile { source, .. } => source.offset(),
            _ => None,
        }
    }
}
