//! Object files linked once into a shared library. The first `send_binary`
//! of a large object file on `local` (one whose layout it saves:
//! split_object/) also starts the system's linker (`cc -shared`) in the
//! background, on the file, into the user's cache directory `libraries`
//! (cache_directory.rs); a later `send_binary` of the same version of the
//! file opens that library with `dlopen` instead of linking the object,
//! which is what the program would pay had it been sent a shared library.
//!
//! The library is linked so that it behaves as the object linked here:
//! `-Bsymbolic` binds its references to its own definitions first, as an
//! object's JITDylib does; it is opened with every reference resolved at
//! once and its symbols visible to itself alone. A session opens one for
//! its first object only (the later ones resolve against the objects before
//! them, which a library cannot see), and only if no other session of the
//! process has it open (it would share their statics). Otherwise, or when it
//! does not open, the object is linked as without it.
//!
//! The linker runs as a child process with an empty environment but `PATH`,
//! its output in a partial file it renames into place when it is done, so a
//! program that exits before the linker does still leaves the library for
//! the next one. Nothing here fails a `send_binary`.

use std::{
    fs::File,
    hash::Hasher,
    os::unix::{io::AsRawFd, process::CommandExt},
    path::PathBuf,
    process::{Command, Stdio},
    sync::{Mutex, PoisonError},
};

use rustc_hash::FxHasher;

use super::{
    cache_directory::{self, CacheDirectory},
    crash,
    library::SharedLibrary,
    object_bytes::FileIdentity,
};

/// How many libraries the directory keeps (each about the size of the code
/// and data of its object).
const KEPT_LIBRARIES: usize = 16;

/// How much lower the linker's priority is than the program's.
const LINKER_NICENESS: libc::c_int = 10;

/// What the linker's shell runs: `$1` the partial file, `$2` the library;
/// the object is the file open as descriptor 3 (the version whose identity
/// names the library, whatever its path names by the time the linker reads
/// it). Private (0600 or 0700), as the directory.
const LINK: &str =
    r#"umask 077; cc -shared -Wl,-Bsymbolic -o "$1" /dev/fd/3 && mv -f "$1" "$2" || rm -f "$1""#;

/// A directory of libraries linked from object files.
pub struct LibraryCache {
    directory: CacheDirectory,
}

impl LibraryCache {
    /// The user's.
    pub fn of_user() -> Option<Self> {
        CacheDirectory::of_user("libraries").map(|directory| Self { directory })
    }

    /// The library linked from the object file of `identity` and
    /// `fingerprint` (split_object's `saved_layout::fingerprint`), if the
    /// cache holds one.
    pub fn find(&self, identity: &FileIdentity, fingerprint: u64) -> Option<PathBuf> {
        let (_, path) = self.directory.open_own(&file_name(identity, fingerprint))?;
        Some(path)
    }

    /// Starts linking the object file at `object`, of `identity` and
    /// `fingerprint`, into a library in the background.
    pub fn link_later(&self, object: &File, identity: &FileIdentity, fingerprint: u64) {
        // A layout saved again (one that did not fit, a lookup that found
        // nothing) does not link the library anew.
        if self.find(identity, fingerprint).is_some() {
            return;
        }
        let Some(directory) = self.directory.private(true) else {
            return;
        };
        let name = file_name(identity, fingerprint);
        let object_fd = object.as_raw_fd();
        let library = directory.join(&name);
        let mut linker = Command::new("sh");
        linker
            .args(["-c", LINK, "sh"])
            .arg(cache_directory::partial_path(directory, &name))
            .arg(&library)
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(search) = std::env::var_os("PATH") {
            linker.env("PATH", search);
        }
        // SAFETY: between fork and exec only async-signal-safe system calls:
        // the object becomes descriptor 3 without close-on-exec (dup2 clears
        // it, fcntl when it is 3 already); every other descriptor the program
        // left inheritable is closed at exec (the linker outlives the
        // program: it must not hold its pipes, sockets or locks); and the
        // linker runs at a lower priority than the program.
        unsafe {
            linker.pre_exec(move || {
                let inherited = if object_fd == 3 {
                    libc::fcntl(3, libc::F_SETFD, 0)
                } else {
                    libc::dup2(object_fd, 3)
                };
                if inherited < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // Best effort: a kernel before Linux 5.11 has no close_range.
                libc::syscall(
                    libc::SYS_close_range,
                    4u32,
                    u32::MAX,
                    libc::CLOSE_RANGE_CLOEXEC,
                );
                libc::setpriority(libc::PRIO_PROCESS, 0, LINKER_NICENESS);
                Ok(())
            });
        }
        match linker.spawn() {
            Ok(mut child) => {
                tracing::debug!(
                    "linking the object into {} in the background",
                    library.display()
                );
                // Reaped when it ends, if this process is still there.
                let _ = std::thread::Builder::new()
                    .name("executor-linker".into())
                    .spawn(move || child.wait());
            }
            Err(error) => tracing::debug!("cannot start the linker: {error}"),
        }
        cache_directory::remove_oldest(directory, "so", KEPT_LIBRARIES);
    }
}

/// The library linked from the object file of `identity` and `fingerprint`,
/// opened for a session as the object `name`, if the cache holds one and no
/// session of this process has it open; `None` also when it does not open
/// (a reference it cannot resolve, say): the object is then linked instead.
pub fn open_cached(name: &str, identity: &FileIdentity, fingerprint: u64) -> Option<SharedLibrary> {
    // Found as the user's own regular file, in directories no other user
    // may write (cache_directory.rs): the path names that file when it is
    // opened.
    let path = LibraryCache::of_user()?.find(identity, fingerprint)?;
    // Two sessions sending the object at once must not both find the
    // library closed and open it.
    static OPENING: Mutex<()> = Mutex::new(());
    let _opening = OPENING.lock().unwrap_or_else(PoisonError::into_inner);
    if SharedLibrary::is_open(&path) {
        tracing::debug!("'{name}' is linked: {} is open already", path.display());
        return None;
    }
    match crash::guard_load(name, || SharedLibrary::open_linked_object(&path, name)) {
        Ok(library) => {
            tracing::debug!("'{name}' is opened as {}", path.display());
            Some(library)
        }
        Err(error) => {
            tracing::debug!("'{name}' is linked: {error}");
            None
        }
    }
}

/// The library's name: the object file's device and inode, and a hash of
/// the rest of its identity and its fingerprint, so that each version of
/// the file has a library of its own.
fn file_name(identity: &FileIdentity, fingerprint: u64) -> String {
    let mut hasher = FxHasher::default();
    for field in identity.fields() {
        hasher.write_u64(field);
    }
    hasher.write_u64(fingerprint);
    format!(
        "{:x}-{:x}-{:016x}.so",
        identity.device(),
        identity.inode(),
        hasher.finish()
    )
}
