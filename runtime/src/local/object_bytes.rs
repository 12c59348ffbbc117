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
        let metadata = file.metadata()?;
        Ok(Self {
            length: metadata.len(),
            modified_ns: (metadata.mtime(), metadata.mtime_nsec()),
        })
    }
}

impl MappedFile {
    /// `path` mapped read-only; an empty file is read, not mapped (a mapping
    /// cannot be empty), and gives `ObjectBytes::Owned`.
    pub fn open(path: &Path) -> io::Result<ObjectBytes> {
        let file = File::open(path)?;
        let stamp = Stamp::of(&file)?;
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
