//! The bytes of an object file: received (an executor-server's worker) or
//! the host's file mapped into memory (`local`). An object linked a piece at
//! a time (split_object/) is read as its kernels are first launched, so
//! `local` maps its file instead of reading all of it at `send_binary`, as
//! `dlopen` maps a shared library's. Every `unsafe` call of the mapping is
//! here.

use std::{
    fs::File,
    io::{self, Read},
    os::unix::fs::MetadataExt,
    path::Path,
    ptr::NonNull,
};

/// An object file's bytes.
pub enum ObjectBytes {
    Owned(Vec<u8>),
    Mapped(MappedFile),
}

impl ObjectBytes {
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Self::Owned(bytes) => bytes,
            Self::Mapped(file) => file.bytes(),
        }
    }

    /// Why the bytes can no longer be read, if so: a mapped file that changed
    /// since it was mapped (reading a page past its new end would kill the
    /// process with SIGBUS, and a page rewritten would mix two objects).
    pub fn stale(&self) -> Option<String> {
        match self {
            Self::Owned(_) => None,
            Self::Mapped(file) => file.changed().then(|| {
                "the object file changed since it was sent (a session reads it as its kernels are \
                 first launched: replace it by renaming a new file over it, or send it to a new session)"
                    .to_owned()
            }),
        }
    }

    /// The open file that is mapped (the very version whose identity this
    /// records, whatever its path names now).
    pub fn file(&self) -> Option<&File> {
        match self {
            Self::Owned(_) => None,
            Self::Mapped(file) => Some(&file.file),
        }
    }

    /// The identity of the file mapped, as it was when it was mapped.
    pub fn identity(&self) -> Option<&FileIdentity> {
        match self {
            Self::Owned(_) => None,
            Self::Mapped(file) => Some(&file.identity),
        }
    }

    /// Tells the kernel that the bytes will be read here and there, not
    /// through: each page read is then mapped alone, not with the 15 after
    /// it.
    pub fn expect_random_reads(&self) {
        if let Self::Mapped(file) = self {
            // SAFETY: advice on the mapping this value owns; it changes how
            // pages are read in, not what the mapping holds.
            unsafe { libc::madvise(file.address.as_ptr().cast(), file.length, libc::MADV_RANDOM) };
        }
    }

    /// The bytes in memory of their own: a mapped file is read (from the
    /// file it was mapped from) and unmapped.
    pub fn into_owned(self) -> io::Result<Vec<u8>> {
        match self {
            Self::Owned(bytes) => Ok(bytes),
            Self::Mapped(mapped) => {
                let mut bytes = Vec::with_capacity(mapped.length);
                (&mapped.file).read_to_end(&mut bytes)?;
                Ok(bytes)
            }
        }
    }
}

/// A file mapped read-only, with what identified its contents when it was
/// mapped.
pub struct MappedFile {
    address: NonNull<u8>,
    length: usize,
    file: File,
    stamp: Stamp,
    identity: FileIdentity,
}

/// Which file, and which version of it: its device and inode, its size,
/// and the times of its last write (which a program may set) and of its
/// last change (which it cannot).
#[derive(Clone, Debug)]
pub struct FileIdentity {
    device: u64,
    inode: u64,
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
    /// When these were read.
    observed: std::time::SystemTime,
}

impl FileIdentity {
    fn of(metadata: &std::fs::Metadata) -> Self {
        Self {
            device: metadata.dev(),
            inode: metadata.ino(),
            size: metadata.size(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
            observed: std::time::SystemTime::now(),
        }
    }

    /// Its seven numbers, in the order above.
    pub fn fields(&self) -> [u64; 7] {
        [
            self.device,
            self.inode,
            self.size,
            self.modified.0 as u64,
            self.modified.1 as u64,
            self.changed.0 as u64,
            self.changed.1 as u64,
        ]
    }

    pub fn device(&self) -> u64 {
        self.device
    }

    pub fn inode(&self) -> u64 {
        self.inode
    }

    /// When the file's metadata was read.
    pub fn observed(&self) -> std::time::SystemTime {
        self.observed
    }

    /// The later of its two times.
    pub fn last_written(&self) -> std::time::SystemTime {
        let (seconds, nanoseconds) = self.modified.max(self.changed);
        let since_epoch = std::time::Duration::new(
            seconds.max(0) as u64,
            nanoseconds.clamp(0, 999_999_999) as u32,
        );
        std::time::UNIX_EPOCH + since_epoch
    }
}

// SAFETY: the mapping is read-only and owned by this value; reading it from
// any thread is as safe as reading a shared slice.
unsafe impl Send for MappedFile {}
// SAFETY: as above.
unsafe impl Sync for MappedFile {}

/// What changes when a file is rewritten in place. (A file renamed over
/// its path is another file: the mapping stays that of the one mapped.)
#[derive(PartialEq, Eq)]
struct Stamp {
    length: u64,
    modified_ns: (i64, i64),
}

impl Stamp {
    fn of(file: &File) -> io::Result<Self> {
        Ok(Self::from(&file.metadata()?))
    }

    fn from(metadata: &std::fs::Metadata) -> Self {
        Self {
            length: metadata.len(),
            modified_ns: (metadata.mtime(), metadata.mtime_nsec()),
        }
    }
}

impl MappedFile {
    /// `path` mapped read-only; an empty file is read, not mapped (a mapping
    /// cannot be empty), and gives `ObjectBytes::Owned`.
    pub fn open(path: &Path) -> io::Result<ObjectBytes> {
        Self::map(File::open(path)?)
    }

    /// `file` mapped read-only, as [`MappedFile::open`] maps the file at a
    /// path.
    pub fn map(file: File) -> io::Result<ObjectBytes> {
        let metadata = file.metadata()?;
        let (stamp, identity) = (Stamp::from(&metadata), FileIdentity::of(&metadata));
        let length = usize::try_from(stamp.length)
            .map_err(|_| io::Error::other("the file does not fit in memory"))?;
        if length == 0 {
            return Ok(ObjectBytes::Owned(Vec::new()));
        }
        // SAFETY: a fresh private read-only mapping of an open file; the
        // kernel picks the address, and the result is checked.
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                length,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                std::os::fd::AsRawFd::as_raw_fd(&file),
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let address =
            NonNull::new(address.cast()).ok_or_else(|| io::Error::other("mmap gave null"))?;
        Ok(ObjectBytes::Mapped(Self {
            address,
            length,
            file,
            stamp,
            identity,
        }))
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping is `length` bytes, readable, and lives as long
        // as `self`.
        unsafe { std::slice::from_raw_parts(self.address.as_ptr(), self.length) }
    }

    /// Whether the file's length or modification time changed.
    fn changed(&self) -> bool {
        Stamp::of(&self.file).map_or(true, |stamp| stamp != self.stamp)
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping made in `open`, once; nothing borrows
        // it any more.
        unsafe { libc::munmap(self.address.as_ptr().cast(), self.length) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn mapped(path: &Path) -> ObjectBytes {
        let bytes = MappedFile::open(path).expect("the file maps");
        assert!(matches!(bytes, ObjectBytes::Mapped(_)));
        bytes
    }

    #[test]
    fn a_mapped_file_reads_as_its_contents() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(b"object bytes").unwrap();
        let bytes = mapped(file.path());
        assert_eq!(bytes.as_slice(), b"object bytes");
        assert!(bytes.stale().is_none());
        assert_eq!(bytes.into_owned().unwrap(), b"object bytes");
    }

    #[test]
    fn a_file_rewritten_in_place_is_stale() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(b"the first object").unwrap();
        let bytes = mapped(file.path());
        // Truncated and written again, as a compiler writing its output does.
        std::fs::write(file.path(), b"short").unwrap();
        let reason = bytes.stale().expect("the change is seen");
        assert!(reason.contains("changed since it was sent"), "{reason}");
    }

    #[test]
    fn a_file_renamed_over_the_path_leaves_the_mapping_as_it_was() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("kernels.o");
        std::fs::write(&path, b"the first object").unwrap();
        let bytes = mapped(&path);
        let replacement = directory.path().join("kernels.o.new");
        std::fs::write(&replacement, b"another").unwrap();
        std::fs::rename(&replacement, &path).unwrap();
        assert!(bytes.stale().is_none());
        assert_eq!(bytes.as_slice(), b"the first object");
    }

    #[test]
    fn an_empty_file_is_read_not_mapped() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let bytes = MappedFile::open(file.path()).unwrap();
        assert!(matches!(&bytes, ObjectBytes::Owned(owned) if owned.is_empty()));
    }
}
