//! Where saved layouts (saved_layout.rs) are kept: the user's cache
//! directory `layouts` (cache_directory.rs), one file per object file, named
//! by its device and inode. A saved layout is used only for the version of
//! the file it names, so one that is stale is passed over, and replaced when
//! the object is next sent. Nothing here fails a `send_binary`: a layout that
//! cannot be read or written is read from the object, as without a cache.

use std::{
    fs::{self, File, OpenOptions},
    io::Write,
    os::unix::fs::OpenOptionsExt,
    time::Duration,
};

use super::saved_layout::SavedLayout;
use crate::local::{
    cache_directory::{self, CacheDirectory},
    object_bytes::{FileIdentity, MappedFile},
};

/// How recently an object file may have been written and still get a saved
/// layout. A file's times advance by the clock's tick (several
/// milliseconds), so a file rewritten twice within one tick could keep its
/// identity; one that has not changed for this long cannot be the first of
/// two such versions.
pub const SETTLED: Duration = Duration::from_secs(1);

/// How many saved layouts the directory keeps (each about 100 bytes per
/// section of its object).
const KEPT_LAYOUTS: usize = 64;

/// A directory of saved layouts.
pub struct LayoutCache {
    directory: CacheDirectory,
}

impl LayoutCache {
    /// The user's.
    pub fn of_user() -> Option<Self> {
        CacheDirectory::of_user("layouts").map(|directory| Self { directory })
    }

    #[cfg(test)]
    pub fn in_directory(directory: std::path::PathBuf) -> Self {
        Self {
            directory: CacheDirectory::at(directory),
        }
    }

    /// The saved layout of the object file of `identity` and `fingerprint`,
    /// if the cache holds one.
    pub fn load(&self, identity: &FileIdentity, fingerprint: u64) -> Option<SavedLayout> {
        let (file, path) = self.directory.open_own(&file_name(identity))?;
        let saved = SavedLayout::read(MappedFile::map(file).ok()?, identity, fingerprint);
        if saved.is_some() {
            tracing::debug!("the object's layout is read from {}", path.display());
        }
        saved
    }

    /// Keeps what `contents` makes, the saved layout of the object file of
    /// `identity`, unless the file had changed too recently, when its
    /// identity was taken, to be told apart from its next version, or the
    /// directory cannot be used; whether it was kept. Written under a name of
    /// its own and renamed into place, so a reader sees the whole file or
    /// none; the oldest layouts are removed past [`KEPT_LAYOUTS`].
    pub fn store(
        &self,
        identity: &FileIdentity,
        contents: impl FnOnce() -> Option<Vec<u8>>,
    ) -> bool {
        if !settled(identity) {
            tracing::debug!(
                "the object's layout is not saved: the object changed less than {SETTLED:?} ago"
            );
            return false;
        }
        let Some(directory) = self.directory.private(true) else {
            tracing::debug!("the object's layout is not saved: no private cache directory");
            return false;
        };
        // Made only now: a layout that cannot be kept is not worth writing.
        let Some(contents) = contents() else {
            return false;
        };
        let path = directory.join(file_name(identity));
        let partial = cache_directory::partial_path(directory, &file_name(identity));
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&partial)
            .and_then(|mut file: File| file.write_all(&contents))
            .and_then(|()| fs::rename(&partial, &path));
        let kept = match written {
            Ok(()) => {
                tracing::debug!("the object's layout is saved in {}", path.display());
                true
            }
            // Another thread's file, not this one's to remove.
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => false,
            Err(error) => {
                tracing::debug!(
                    "the object's layout is not saved in {}: {error}",
                    directory.display()
                );
                let _ = fs::remove_file(&partial);
                false
            }
        };
        cache_directory::remove_oldest(directory, "layout", KEPT_LAYOUTS);
        kept
    }

    /// Removes the saved layout of the object file of `identity`, found not
    /// to fit it.
    pub fn remove(&self, identity: &FileIdentity) {
        self.directory.remove(&file_name(identity));
    }
}

/// Whether the file of `identity` had not changed for [`SETTLED`] when its
/// identity was taken.
pub fn settled(identity: &FileIdentity) -> bool {
    identity
        .observed()
        .duration_since(identity.last_written())
        .is_ok_and(|age| age >= SETTLED)
}

fn file_name(identity: &FileIdentity) -> String {
    format!("{:x}-{:x}.layout", identity.device(), identity.inode())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::object_bytes::ObjectBytes;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::path::Path;
    use std::time::SystemTime;

    /// A file, mapped, whose identity is that of the mapping.
    fn mapped(path: &Path, contents: &[u8]) -> ObjectBytes {
        fs::write(path, contents).unwrap();
        MappedFile::open(path).unwrap()
    }

    /// What `store` keeps for `bytes`: the saved layout of an object of no
    /// sections (`load` reads back only whole files of the format).
    fn entry(bytes: &ObjectBytes) -> (FileIdentity, u64, Vec<u8>) {
        let identity = bytes.identity().unwrap().clone();
        let fingerprint = crate::local::split_object::saved_layout::fingerprint(bytes.as_slice());
        let contents = SavedLayout::write(
            &identity,
            fingerprint,
            &Default::default(),
            // No sections: the table of where each section's globals start
            // has its two entries before the first section.
            &crate::local::split_object::saved_layout::Tables {
                start: &[0, 0],
                ..Default::default()
            },
        );
        (identity, fingerprint, contents)
    }

    #[test]
    fn a_layout_is_kept_for_a_file_that_has_settled_and_found_again() {
        let scratch = tempfile::tempdir().unwrap();
        let cache = LayoutCache::in_directory(scratch.path().join("cache").join("layouts"));
        let bytes = mapped(&scratch.path().join("kernels.o"), b"kernels");
        let (identity, fingerprint, contents) = entry(&bytes);
        let mut made = false;
        cache.store(&identity, || {
            made = true;
            Some(contents.clone())
        });
        assert!(!made, "no layout is made for a file written just now");
        assert!(cache.load(&identity, fingerprint).is_none());
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        cache.store(&identity, || Some(contents.clone()));
        assert!(
            cache.load(&identity, fingerprint).is_none(),
            "its identity was taken when it was new"
        );
        let bytes = MappedFile::open(&scratch.path().join("kernels.o")).unwrap();
        let (identity, fingerprint, contents) = entry(&bytes);
        cache.store(&identity, || Some(contents.clone()));
        assert!(cache.load(&identity, fingerprint).is_some());
        let mode = fs::metadata(scratch.path().join("cache")).unwrap().mode();
        assert_eq!(mode & 0o777, 0o700, "the directories made are private");
        // Another file (another inode) finds nothing.
        let other = mapped(&scratch.path().join("other.o"), b"kernels");
        let (other_identity, _, _) = entry(&other);
        assert!(cache.load(&other_identity, fingerprint).is_none());
        // A directory others may write is not used.
        let directory = scratch.path().join("cache").join("layouts");
        fs::set_permissions(&directory, fs::Permissions::from_mode(0o777)).unwrap();
        assert!(cache.load(&identity, fingerprint).is_none());
        fs::set_permissions(&directory, fs::Permissions::from_mode(0o700)).unwrap();
        assert!(cache.load(&identity, fingerprint).is_some());
        // Nor is anything but a regular file: a FIFO would block the open.
        let kept = directory.join(file_name(&identity));
        fs::rename(&kept, scratch.path().join("kept")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&kept)
            .status()
            .unwrap();
        assert!(made.success(), "mkfifo makes a FIFO");
        assert!(cache.load(&identity, fingerprint).is_none());
        fs::remove_file(&kept).unwrap();
        fs::rename(scratch.path().join("kept"), &kept).unwrap();
        // Nor is a layout reached through a symbolic link.
        fs::rename(&kept, scratch.path().join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(scratch.path().join("elsewhere"), &kept).unwrap();
        assert!(cache.load(&identity, fingerprint).is_none());
    }

    #[test]
    fn no_layout_is_made_where_it_cannot_be_kept() {
        let scratch = tempfile::tempdir().unwrap();
        let blocker = scratch.path().join("a file");
        fs::write(&blocker, b"").unwrap();
        let cache = LayoutCache::in_directory(blocker.join("layouts"));
        fs::write(scratch.path().join("kernels.o"), b"kernels").unwrap();
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        let (identity, _, _) = entry(&MappedFile::open(&scratch.path().join("kernels.o")).unwrap());
        cache.store(&identity, || {
            panic!("a layout is made for a directory that cannot be")
        });
    }

    #[test]
    fn the_oldest_layouts_and_abandoned_partial_files_are_removed() {
        let directory = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let write = |name: &str, age: Duration| {
            let file = File::create(directory.path().join(name)).unwrap();
            file.set_modified(now - age).unwrap();
        };
        for index in 0..KEPT_LAYOUTS + 3 {
            write(
                &format!("{index}.layout"),
                Duration::from_secs(index as u64 * 10),
            );
        }
        write("old.partial", Duration::from_secs(3600));
        write("recent.partial", Duration::from_secs(1));
        cache_directory::remove_oldest(directory.path(), "layout", KEPT_LAYOUTS);
        let left = |name: &str| directory.path().join(name).exists();
        assert!((0..KEPT_LAYOUTS).all(|index| left(&format!("{index}.layout"))));
        assert!((KEPT_LAYOUTS..KEPT_LAYOUTS + 3).all(|index| !left(&format!("{index}.layout"))));
        assert!(!left("old.partial") && left("recent.partial"));
    }
}
