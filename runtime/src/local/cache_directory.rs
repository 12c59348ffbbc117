//! A directory of the user's cache, `$XDG_CACHE_HOME/executor-mlir/<name>`
//! (`~/.cache/...` when that is unset), where the runtime keeps what it
//! made of an object file for later runs: its layout
//! (split_object/layout_cache.rs), the shared library it was linked into
//! (object_library.rs). The directory may be removed at any time.
//!
//! The directories it makes are private (mode 0700). The directory is not
//! used unless it is this user's and no one else may write it or a
//! directory above it (but a sticky one, as `/tmp`), nor is a file in it
//! that is not this user's or not a regular file: another user could
//! otherwise choose what a program links.

use std::{
    fs::{self, DirBuilder, File, OpenOptions},
    os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt},
    path::{Component, Path, PathBuf},
    sync::{Mutex, PoisonError},
    time::{Duration, SystemTime},
};

use executor_protocol::unix_socket::own_uid;

/// How old a partial file must be to have been left by a process that
/// stopped while writing it.
const ABANDONED: Duration = Duration::from_secs(600);

pub struct CacheDirectory {
    directory: PathBuf,
}

impl CacheDirectory {
    /// The user's directory `name`: in `$XDG_CACHE_HOME`, or `~/.cache`
    /// when that is unset; `None` when neither is an absolute path.
    pub fn of_user(name: &str) -> Option<Self> {
        let absolute = |name| std::env::var_os(name).filter(|path| Path::new(path).is_absolute());
        let base = match absolute("XDG_CACHE_HOME") {
            Some(path) => PathBuf::from(path),
            None => PathBuf::from(absolute("HOME")?).join(".cache"),
        };
        Some(Self::at(base.join("executor-mlir").join(name)))
    }

    pub fn at(directory: PathBuf) -> Self {
        Self { directory }
    }

    /// The directory, made when `create` is set and it does not exist;
    /// `None` when it is not this user's alone.
    pub fn private(&self, create: bool) -> Option<&Path> {
        if create {
            // Each directory made is private; one that exists is checked below.
            let _ = DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&self.directory);
        }
        let metadata = fs::symlink_metadata(&self.directory).ok()?;
        let private =
            metadata.is_dir() && metadata.uid() == own_uid() && metadata.mode() & 0o022 == 0;
        (private && ancestors_trusted(&self.directory)).then_some(self.directory.as_path())
    }

    /// The file `file_name` in the directory, open for reading, if it is
    /// this user's regular file in a private directory; with its path.
    pub fn open_own(&self, file_name: &str) -> Option<(File, PathBuf)> {
        let path = self.private(false)?.join(file_name);
        // Not blocking: a FIFO put in its place would wait for a writer.
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
            .ok()?;
        let metadata = file.metadata().ok()?;
        (metadata.is_file() && metadata.uid() == own_uid()).then_some((file, path))
    }

    /// Removes the file `file_name`, if the directory is private.
    pub fn remove(&self, file_name: &str) {
        if let Some(directory) = self.private(false) {
            let _ = fs::remove_file(directory.join(file_name));
        }
    }
}

/// Whether no one but this user and root can move what is under
/// `directory`: every directory above it, by the path given and by its real
/// path, is theirs and others may not write it, or it is sticky (as `/tmp`).
/// Else another user could swap the cache for one of theirs between a check
/// and its use. Asked once per parent directory and process: only these
/// two users can change the answer.
fn ancestors_trusted(directory: &Path) -> bool {
    static TRUSTED: Mutex<Vec<(PathBuf, bool)>> = Mutex::new(Vec::new());
    let Some(parent) = directory.parent() else {
        return true;
    };
    let mut known = TRUSTED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, trusted)) = known.iter().find(|(path, _)| path == parent) {
        return *trusted;
    }
    let trusted_directory = |metadata: &fs::Metadata| {
        let owner = metadata.uid() == own_uid() || metadata.uid() == 0;
        let others_write = metadata.mode() & 0o022 != 0;
        let sticky = metadata.mode() & 0o1000 != 0;
        owner && (!others_write || sticky)
    };
    // The path as given, each step of it, symbolic links included; when one
    // is a link (or the path has `..`), the real path's steps as well.
    let mut plain = parent.is_absolute();
    let mut trusted = parent.ancestors().all(|ancestor| {
        fs::symlink_metadata(ancestor).is_ok_and(|metadata| {
            if metadata.file_type().is_symlink() {
                plain = false;
                // The link's own directory is the next ancestor checked.
                return true;
            }
            metadata.is_dir() && trusted_directory(&metadata)
        })
    });
    if trusted && (!plain || parent.components().any(|part| part == Component::ParentDir)) {
        trusted = fs::canonicalize(parent).is_ok_and(|real| {
            real.ancestors().all(|ancestor| {
                fs::metadata(ancestor).is_ok_and(|metadata| trusted_directory(&metadata))
            })
        });
    }
    known.push((parent.to_owned(), trusted));
    trusted
}

/// Where a file to be renamed to `directory/file_name` is written first:
/// a name unique to this thread of this process, and to this moment (a
/// partial file a stopped process left keeps its process id).
pub fn partial_path(directory: &Path, file_name: &str) -> PathBuf {
    directory.join(format!(
        "{file_name}.{}.{:?}.{}.partial",
        std::process::id(),
        std::thread::current().id(),
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos())
    ))
}

/// Removes the oldest files of `directory` whose names end in `.extension`
/// past the newest `kept`, and partial files a process left behind more than
/// [`ABANDONED`] ago.
pub fn remove_oldest(directory: &Path, extension: &str, kept: usize) {
    let Ok(entries) = fs::read_dir(directory) else {
        return;
    };
    let mut files = Vec::new();
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let (path, metadata) = (entry.path(), entry.metadata());
        let Ok(modified) = metadata.and_then(|metadata| metadata.modified()) else {
            continue;
        };
        match path.extension().and_then(|found| found.to_str()) {
            Some(found) if found == extension => files.push((modified, path)),
            Some("partial")
                if now
                    .duration_since(modified)
                    .is_ok_and(|age| age > ABANDONED) =>
            {
                let _ = fs::remove_file(path);
            }
            _ => {}
        }
    }
    if files.len() > kept {
        files.sort();
        for (_, path) in &files[..files.len() - kept] {
            let _ = fs::remove_file(path);
        }
    }
}
