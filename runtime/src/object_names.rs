//! The name a session knows a sent file by: its canonical path, so that one
//! file under two spellings (`k.o`, `./k.o`) is one object, sent once, and a
//! launch may name it either way. Resolved on the host, where the file is.

use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxHashMap;

use crate::error::{Result, RuntimeError};

#[derive(Default)]
pub struct ObjectNames {
    /// Each spelling resolved so far, and its canonical path (shared: a
    /// launch asks for it every time).
    canonical: Mutex<FxHashMap<String, Arc<str>>>,
}

impl ObjectNames {
    /// The canonical path of the file spelled `spelling`, or the spelling
    /// itself when it names no file (then errors name it as the program did).
    /// An error if that path is not UTF-8: converted, it could be another
    /// file's name.
    pub fn canonical(&self, spelling: &str) -> Result<Arc<str>> {
        let mut known = self
            .canonical
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(name) = known.get(spelling) {
            return Ok(Arc::clone(name));
        }
        let Ok(path) = std::fs::canonicalize(spelling) else {
            // Not remembered: the file may appear later.
            return Ok(spelling.into());
        };
        let name: Arc<str> = path
            .to_str()
            .ok_or_else(|| RuntimeError::NonUtf8Path {
                spelling: spelling.to_owned(),
                canonical: path.to_string_lossy().into_owned(),
            })?
            .into();
        known.insert(spelling.to_owned(), Arc::clone(&name));
        Ok(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_spellings_of_one_file_have_one_name() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("k.o");
        std::fs::write(&file, b"").unwrap();
        let names = ObjectNames::default();
        let plain = names.canonical(file.to_str().unwrap()).unwrap();
        let dotted = directory.path().join(".").join("k.o");
        assert_eq!(names.canonical(dotted.to_str().unwrap()).unwrap(), plain);
        assert_eq!(
            &*names.canonical("no/such/file.o").unwrap(),
            "no/such/file.o"
        );
    }

    #[test]
    fn files_whose_paths_differ_only_in_bytes_that_are_not_utf8_are_refused() {
        use std::os::unix::ffi::OsStrExt;

        let directory = tempfile::tempdir().unwrap();
        let names = ObjectNames::default();
        // Converted lossily, both targets would be "\u{FFFD}.o".
        for (target, link) in [(b"\xff.o", "a.o"), (b"\xfe.o", "b.o")] {
            let target = directory.path().join(std::ffi::OsStr::from_bytes(target));
            std::fs::write(&target, b"").unwrap();
            let link = directory.path().join(link);
            std::os::unix::fs::symlink(&target, &link).unwrap();
            let error = names.canonical(link.to_str().unwrap()).unwrap_err();
            assert!(
                matches!(&error, RuntimeError::NonUtf8Path { spelling, .. } if *spelling == link.to_str().unwrap()),
                "{error}"
            );
        }
    }
}
