//! The trace file: a JSON array of events that is valid JSON after every
//! write. The file always ends with `\n]\n`; each batch of events goes over
//! that end in one positioned write that ends with it again, so a program
//! that stops anywhere (exit, exit 1, SIGINT) leaves a complete array.

use std::{
    fs::File,
    io,
    os::unix::fs::FileExt,
    path::{Path, PathBuf},
};

/// What closes the array, after the last event.
const END: &[u8] = b"\n]\n";

pub struct TraceFile {
    file: File,
    pub path: PathBuf,
    /// Where the closing [`END`] starts: the next batch is written there.
    end: u64,
    empty: bool,
}

impl TraceFile {
    /// Creates (or truncates) the file at `path` and writes an empty array.
    pub fn create(path: &Path) -> io::Result<Self> {
        let file = File::create(path)?;
        file.write_all_at(b"[\n]\n", 0)?;
        Ok(Self {
            file,
            path: path.to_owned(),
            end: 1,
            empty: true,
        })
    }

    /// Appends `events`, each one JSON object, in one write.
    pub fn append(&mut self, events: &[String]) -> io::Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for event in events {
            text.push_str(if self.empty { "\n" } else { ",\n" });
            self.empty = false;
            text.push_str(event);
        }
        let body = text.len() as u64;
        text.push_str(std::str::from_utf8(END).unwrap_or_default());
        self.file.write_all_at(text.as_bytes(), self.end)?;
        self.end += body;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_a_json_array_after_every_append() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("t.json");
        let mut file = TraceFile::create(&path).unwrap();
        let read = || std::fs::read_to_string(&path).unwrap();
        assert_eq!(read(), "[\n]\n");
        file.append(&["{\"a\":1}".into()]).unwrap();
        assert_eq!(read(), "[\n{\"a\":1}\n]\n");
        file.append(&["{\"b\":2}".into(), "{\"c\":3}".into()])
            .unwrap();
        assert_eq!(read(), "[\n{\"a\":1},\n{\"b\":2},\n{\"c\":3}\n]\n");
    }
}
