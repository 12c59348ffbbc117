//! The name a session knows a sent file by: its canonical path, so that one
//! file under two spellings (`k.o`, `./k.o`) is one object, sent once, and a
//! launch may name it either way. Resolved on the host, where the file is.

use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxHashMap;

#[derive(Default)]
pub struct ObjectNames {
    /// Each spelling resolved so far, and its canonical path (shared: a
    /// launch asks for it every time).
    canonical: Mutex<FxHashMap<String, Arc<str>>>,
}

impl ObjectNames {
    /// The canonical path of the file spelled `spelling`, or the spelling
    /// itself when it names no file (then errors name it as the program did).
    pub fn canonical(&self, spelling: &str) -> Arc<str> {
        let mut known = self
            .canonical
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(name) = known.get(spelling) {
            return Arc::clone(name);
        }
        match std::fs::canonicalize(spelling) {
            Ok(path) => {
                let name: Arc<str> = path.to_string_lossy().into();
                known.insert(spelling.to_owned(), Arc::clone(&name));
                name
            }
            // Not remembered: the file may appear later.
            Err(_) => spelling.into(),
        }
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
        let plain = names.canonical(file.to_str().unwrap());
        let dotted = directory.path().join(".").join("k.o");
        assert_eq!(names.canonical(dotted.to_str().unwrap()), plain);
        assert_eq!(&*names.canonical("no/such/file.o"), "no/such/file.o");
    }
}
