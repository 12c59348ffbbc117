//! The Unix socket a server binds itself (`--listen unix:PATH`). Its file
//! is made mode 0600, or 0660 and owned by `--socket-group`, between `bind`
//! and `listen`: until it listens, a connection is refused, so no client
//! connects while the file is still open to others. A socket file left by a
//! server that is gone (nothing answers on it) is replaced; one a live
//! server answers on, or a path that is no socket, is refused. The file is
//! removed when the server stops cleanly (`shutdown.rs`), if it is still
//! the one this server made.

use std::{
    ffi::CString,
    io,
    os::{
        fd::{AsRawFd, OwnedFd},
        unix::{
            fs::{FileTypeExt, MetadataExt, PermissionsExt},
            net::UnixListener,
        },
    },
    path::{Path, PathBuf},
    time::Duration,
};

use executor_protocol::unix_socket;

/// How long a socket file found at start-up is given to answer: a live
/// server accepts at once, or its queue is full, which also tells.
const LIVENESS_TIMEOUT: Duration = Duration::from_secs(1);

/// The socket file this server made; removed when dropped (or by
/// [`SocketFile::remove`]) if the path still names it.
#[derive(Debug)]
pub(crate) struct SocketFile {
    path: PathBuf,
    device: u64,
    inode: u64,
}

impl SocketFile {
    /// Removes the file, unless another has taken its path since.
    pub fn remove(&self) {
        let ours = std::fs::symlink_metadata(&self.path)
            .is_ok_and(|metadata| metadata.dev() == self.device && metadata.ino() == self.inode);
        if ours && let Err(error) = std::fs::remove_file(&self.path) {
            tracing::warn!(path = %self.path.display(), %error, "cannot remove the socket file");
        }
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Binds and listens on a new socket file at `path`, mode 0600, or 0660 and
/// owned by `group` if given. The error is the reason alone; the caller
/// names the address.
pub(crate) fn bind(path: &Path, group: Option<u32>) -> Result<(UnixListener, SocketFile), String> {
    clear_the_way(path)?;
    let socket = unix_socket::new_socket().map_err(|error| error.to_string())?;
    let (address, length) = unix_socket::socket_address(path).map_err(|error| error.to_string())?;
    // SAFETY: `address` is a valid sockaddr_un of `length` bytes, live for
    // the call.
    let bound = unsafe { libc::bind(socket.as_raw_fd(), (&raw const address).cast(), length) };
    if bound == -1 {
        return Err(bind_error(path, &io::Error::last_os_error()));
    }
    let metadata = std::fs::symlink_metadata(path).map_err(|error| error.to_string())?;
    // From here on, a failure removes the file it made.
    let file = SocketFile {
        path: path.to_owned(),
        device: metadata.dev(),
        inode: metadata.ino(),
    };
    restrict(path, group)?;
    listen(&socket).map_err(|error| error.to_string())?;
    Ok((UnixListener::from(socket), file))
}

/// Removes a stale socket file at `path`; an error if something else is
/// there or a server answers on it.
fn clear_the_way(path: &Path) -> Result<(), String> {
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error.to_string()),
    };
    if !metadata.file_type().is_socket() {
        return Err(format!(
            "'{}' exists and is not a socket: remove it or choose another path",
            path.display()
        ));
    }
    match unix_socket::connect(path, LIVENESS_TIMEOUT) {
        Ok(_) => Err("a server is listening on it already".to_owned()),
        Err(error) if error.kind() == io::ErrorKind::TimedOut => {
            Err("a server is listening on it already (its queue is full)".to_owned())
        }
        Err(error) if error.kind() == io::ErrorKind::ConnectionRefused => {
            tracing::info!(path = %path.display(), "replacing a stale socket file (nothing listens on it)");
            std::fs::remove_file(path)
                .map_err(|error| format!("cannot remove the stale socket file there: {error}"))
        }
        Err(error) => Err(format!(
            "cannot tell whether a server listens on it: {error}"
        )),
    }
}

/// What a failed `bind` means for this path.
fn bind_error(path: &Path, error: &io::Error) -> String {
    let directory = path.parent().unwrap_or(Path::new("/")).display();
    match error.kind() {
        io::ErrorKind::NotFound => format!("no such directory '{directory}'"),
        io::ErrorKind::PermissionDenied => {
            format!("permission denied: this user cannot create files in '{directory}'")
        }
        // Another server made it since `clear_the_way`.
        io::ErrorKind::AddrInUse => "a server is listening on it already".to_owned(),
        _ => error.to_string(),
    }
}

/// Mode 0600, or 0660 and the group `group`.
fn restrict(path: &Path, group: Option<u32>) -> Result<(), String> {
    let mode = if group.is_some() { 0o660 } else { 0o600 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|error| format!("cannot make it mode {mode:o}: {error}"))?;
    if let Some(group) = group {
        std::os::unix::fs::chown(path, None, Some(group)).map_err(|error| {
            format!("cannot give it to group {group} (--socket-group): {error}")
        })?;
    }
    Ok(())
}

fn listen(socket: &OwnedFd) -> io::Result<()> {
    // SAFETY: listen takes a descriptor, open for the call, and a number.
    if unsafe { libc::listen(socket.as_raw_fd(), libc::SOMAXCONN) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The id of the group `name` (a name, or a number as it is).
pub(crate) fn group_id(name: &str) -> Result<u32, String> {
    if let Ok(id) = name.parse::<u32>() {
        return Ok(id);
    }
    let unknown = || format!("no group named '{name}'");
    let c_name = CString::new(name).map_err(|_| unknown())?;
    let mut buffer = vec![0u8; 1024];
    loop {
        // SAFETY: group is plain data; getgrnam_r fills it in.
        let mut group: libc::group = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::group = std::ptr::null_mut();
        // SAFETY: every pointer is valid for the call, and `buffer` is as
        // long as the length given; the strings the entry points at are in
        // `buffer`, and only its gid is read.
        let result = unsafe {
            libc::getgrnam_r(
                c_name.as_ptr(),
                &mut group,
                buffer.as_mut_ptr().cast(),
                buffer.len(),
                &mut found,
            )
        };
        if result == libc::ERANGE && buffer.len() < 1 << 20 {
            buffer.resize(buffer.len() * 4, 0);
            continue;
        }
        if result != 0 {
            return Err(format!(
                "cannot look up group '{name}': {}",
                io::Error::from_raw_os_error(result)
            ));
        }
        return if found.is_null() {
            Err(unknown())
        } else {
            Ok(group.gr_gid)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_file_is_private_until_removed() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("s.sock");
        let (listener, file) = bind(&path, None).unwrap();
        let metadata = std::fs::metadata(&path).unwrap();
        assert!(metadata.file_type().is_socket());
        assert_eq!(metadata.permissions().mode() & 0o777, 0o600);
        // A second server is refused while the first listens.
        assert_eq!(
            bind(&path, None).unwrap_err(),
            "a server is listening on it already"
        );
        drop(file);
        assert!(!path.exists());
        drop(listener);
    }

    #[test]
    fn a_stale_socket_file_is_replaced() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("s.sock");
        drop(UnixListener::bind(&path).unwrap());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
        let refused = unix_socket::connect(&path, LIVENESS_TIMEOUT).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::ConnectionRefused);
        let (_listener, file) = bind(&path, None).unwrap();
        // (The new file may reuse the stale one's inode: what it is tells.)
        assert!(unix_socket::connect(&path, LIVENESS_TIMEOUT).is_ok());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        drop(file);
    }

    #[test]
    fn a_path_that_is_no_socket_is_refused_and_kept() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("notes.txt");
        std::fs::write(&path, "keep me").unwrap();
        let error = bind(&path, None).unwrap_err();
        assert!(error.contains("exists and is not a socket"), "{error}");
        assert!(error.contains(&path.display().to_string()), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me");
        let missing = directory.path().join("no/such/dir.sock");
        assert!(
            bind(&missing, None)
                .unwrap_err()
                .starts_with("no such directory")
        );
    }

    #[test]
    fn with_a_group_the_socket_file_is_open_to_it() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("s.sock");
        // SAFETY: getegid has no preconditions.
        let own_group = unsafe { libc::getegid() };
        let (_listener, _file) = bind(&path, Some(own_group)).unwrap();
        let metadata = std::fs::metadata(&path).unwrap();
        assert_eq!(metadata.permissions().mode() & 0o777, 0o660);
        assert_eq!(metadata.gid(), own_group);
    }

    #[test]
    fn groups_are_found_by_name_or_number() {
        assert_eq!(group_id("0"), Ok(0));
        assert_eq!(group_id("root"), Ok(0));
        assert_eq!(
            group_id("no-such-group-here"),
            Err("no group named 'no-such-group-here'".to_owned())
        );
    }
}
