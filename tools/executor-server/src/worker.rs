//! A session's worker process (`executor-server --worker`): starts its
//! [`LocalExecutor`] (LLVM, the JIT, the `--preload`ed libraries), then waits
//! on its control channel for the session the server hands it after the
//! handshake (`handover.rs`; a warm worker waits there before any client
//! comes), and serves that session's requests. Before running any client
//! symbol it records which in the status table it shares with the
//! supervisor, so that a crash can be reported. Between requests it polls its
//! socket for a moment before it blocks on it (`executor_runtime::polling`).

use std::{
    collections::{HashMap, HashSet},
    io::{BufRead, Write},
    os::{
        fd::{AsFd, FromRawFd, OwnedFd, RawFd},
        unix::fs::OpenOptionsExt,
    },
    path::{Path, PathBuf},
    time::Instant,
};

use crate::{
    ServerError,
    catalyst_assets::CatalystAssetLink,
    code_pages, handover,
    session_io::{self, ReplyWriter, RequestReader},
    status::{Announcer, Running},
    steps::{self, Steps},
    work_dir,
};
use executor_abi::call_buffer::Layout;

use executor_runtime::{
    error::{Result, RuntimeError, destructors_of, load_time_code_of},
    executor::{BinaryFormat, Executor},
    local::{LocalExecutor, ObjectBytes, static_memory},
    memref::{DenseBuffer, Descriptor, OwnedDescriptor},
    polling::{more_than_one_cpu, poll_briefly, worth_polling},
    protocol::{self, FrameReader, OutputShape, ProtocolError, Request, Response, Stream},
    trace::kernel_name,
};

/// What the supervisor passes on the worker's command line.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// The worker's end of its control channel, on which its session comes.
    pub control_fd: RawFd,
    /// The memfd of the status table shared with the supervisor.
    pub status_fd: RawFd,
    pub preload: Vec<PathBuf>,
    pub max_message_size: u32,
    /// Where the session's trace file goes (`--trace-dir`).
    pub trace_dir: Option<PathBuf>,
}

/// Starts the executor, waits for a session and serves it until the client
/// closes it or disconnects.
pub fn run_worker(config: WorkerConfig) -> std::result::Result<(), ServerError> {
    let control = adopt_fd(config.control_fd)?;
    // Once mapped, the table needs no descriptor: it is closed here.
    let announcer = Announcer::attach(adopt_fd(config.status_fd)?.as_fd())
        .map_err(|error| ServerError::Worker(format!("cannot map the status table: {error}")))?;
    die_of_memory_faults();
    // Before the session comes: this is what a warm worker has done already.
    announcer.prepare();
    let executor_start = Instant::now();
    let started = start_executor(&config.preload);
    // Only ahead of a session: one that waits already would wait for it.
    if !handover::session_waiting(control.as_fd()) {
        let _ = code_pages::map_ahead();
    }
    let executor_start = steps::since(steps::EXECUTOR_START, executor_start);
    // Leads to the working directory, which becomes the session's asset
    // directory as the session comes.
    let catalyst_asset_link = CatalystAssetLink::create();
    let Some(session) = handover::receive_session(control.as_fd())
        .map_err(|error| ServerError::Worker(format!("cannot receive a session: {error}")))?
    else {
        // The server closed the channel: no session will come.
        return Ok(());
    };
    drop(control);
    let steps = Steps::new(session.steps, executor_start, config.trace_dir.as_deref());
    let session_dir = session.directory;
    let mut poll_between_requests = true;
    let over_tls = session.tls.is_some();
    let (reader, mut writer) = Stream::from_fd(session.connection)
        .and_then(|stream| {
            poll_between_requests = worth_polling(stream.transport());
            session_io::split(
                stream,
                session.request_head,
                session.tls,
                announcer.record_log(),
            )
        })
        .map_err(|error| {
            ServerError::Worker(format!("cannot serve the session's socket: {error}"))
        })?;
    let executor = match started {
        Ok(executor) => executor,
        Err(error) => {
            // Answers the client's first request; the session ends here.
            let failed = Response::Failed {
                message: format!("the executor cannot start: {error}"),
            };
            let _ = protocol::write_message(&mut writer, &failed, config.max_message_size);
            writer.close();
            return Err(ServerError::Worker(error.to_string()));
        }
    };
    let reader = FrameReader::for_session(over_tls, reader);
    let assets = enter_asset_directory(&session_dir).map_err(|error| {
        ServerError::Worker(format!("cannot enter the asset directory: {error}"))
    })?;
    Worker {
        writer,
        reader,
        poll_between_requests,
        announcer,
        executor,
        directory: session_dir,
        assets,
        _catalyst_asset_link: catalyst_asset_link,
        max_message_size: config.max_message_size,
        loaded: HashSet::new(),
        libraries_written: 0,
        in_flight: HashMap::new(),
        spare_inputs: Vec::new(),
        frame: Vec::new(),
        steps,
        kind: "",
        sent_object: None,
    }
    .serve();
    Ok(())
}

/// Writes out what kernels printed with C's stdio, which buffers it (the
/// worker's stdout is a pipe to the server's log): before the client hears
/// back, so that a client that then stops the server, killing this worker,
/// loses none of it.
fn flush_kernel_output() {
    // SAFETY: fflush with a null stream flushes every open C stream; nothing
    // else is passed.
    unsafe { libc::fflush(std::ptr::null_mut()) };
}

/// Lets a memory fault kill the worker by its own signal, which the
/// supervisor reports: Rust's handler would turn a kernel's stack overflow
/// into an abort (SIGABRT), as if the kernel had called `abort()`.
fn die_of_memory_faults() {
    for signal in [libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: restores the default action of a signal; no memory involved.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
    }
}

/// Takes ownership of a descriptor inherited from the supervisor.
fn adopt_fd(fd: RawFd) -> std::result::Result<OwnedFd, ServerError> {
    let not_inherited = || {
        ServerError::Worker(format!(
            "descriptor {fd} was not inherited (the --worker flags are for executor-server's own use)"
        ))
    };
    if fd < 3 {
        return Err(not_inherited());
    }
    // SAFETY: F_GETFD only queries the descriptor table.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
    if flags == -1 {
        return Err(not_inherited());
    }
    // Processes a kernel might start must not inherit it in turn.
    // SAFETY: sets a flag on a descriptor that is open, as just checked.
    unsafe { libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) };
    // SAFETY: the supervisor passed this open descriptor for this process to
    // own, and nothing else in it refers to that number.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn start_executor(preload: &[PathBuf]) -> Result<LocalExecutor> {
    let executor = LocalExecutor::new()?;
    if let Err(error) = executor.prepare_jit() {
        // Not fatal here: a session that sends only shared libraries needs no
        // JIT, and the first object sent tries again, failing as it would.
        tracing::warn!(%error, "cannot prepare the JIT before the session");
    }
    for library in preload {
        executor.preload_library(library)?;
    }
    Ok(executor)
}

struct Worker {
    writer: ReplyWriter,
    /// Requests are read through a buffer: a small frame then takes one
    /// system call, not one for its length and more for its payload.
    reader: FrameReader<RequestReader>,
    /// Whether the worker polls for the next request before it blocks
    /// (`executor_runtime::polling::worth_polling`).
    poll_between_requests: bool,
    announcer: Announcer,
    executor: LocalExecutor,
    /// The session's private directory, where shared libraries are stored.
    directory: PathBuf,
    /// Its `assets` directory, the worker's working directory.
    assets: PathBuf,
    /// Catalyst's path to the assets (a link to the working directory),
    /// removed when the session ends.
    _catalyst_asset_link: Option<CatalystAssetLink>,
    max_message_size: u32,
    /// Object names already loaded: a name is loaded once per session.
    loaded: HashSet<String>,
    libraries_written: u64,
    /// Async launches by token, still announced as running until awaited.
    in_flight: HashMap<u64, Running>,
    /// The input buffers of the last launch, which the next one reads its
    /// inputs into: a loop of launches of the same sizes then reads into
    /// memory it already has instead of fresh pages (at the cost of keeping
    /// that much memory between launches).
    spare_inputs: Vec<Vec<u8>>,
    /// The last reply's frame; a launch writes its results into it, so that
    /// a loop of launches writes into memory it already has (as with the
    /// inputs, at the cost of keeping the largest result's memory until a
    /// reply other than a launch's replaces it).
    frame: Vec<u8>,
    /// What it measures of each request, for a client that asked and for
    /// `--trace-dir`.
    steps: Steps,
    /// The kind of the request being served, for its step.
    kind: &'static str,
    /// The object file the request being served sent, to link ahead of its
    /// first launch once answered ([`Worker::link_ahead`]).
    sent_object: Option<String>,
}

/// How a request is answered: with a message, or with the results of a
/// launch, already written into the worker's frame.
enum Reply {
    Message(Response),
    Launched,
}

impl Worker {
    fn serve(mut self) {
        loop {
            if self.poll_between_requests && self.reader.buffer().is_empty() {
                // A client launching in a loop sends its next request within
                // the poll, and the worker is still on its CPU to take it:
                // the poll reads it into the buffer.
                self.reader.get_mut().set_dont_wait(true);
                poll_briefly(|| match self.reader.fill_buf() {
                    Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => None,
                    // Bytes, the end or an error: the read below takes it.
                    _ => Some(()),
                });
                self.reader.get_mut().set_dont_wait(false);
            }
            let request = match protocol::read_request(
                &mut self.reader,
                self.max_message_size,
                &mut self.spare_inputs,
            ) {
                Ok(request) => {
                    self.steps.request_read();
                    request
                }
                Err(error @ (ProtocolError::Malformed(_) | ProtocolError::OverLimit(_))) => {
                    self.steps.request_read();
                    self.kind = "a malformed request";
                    // The frame was read whole, so the next one can still be read.
                    let failed = Response::Failed {
                        message: format!("request refused: {error}"),
                    };
                    if self.reply(Reply::Message(failed)).is_err() {
                        return self.abandon();
                    }
                    continue;
                }
                Err(error @ ProtocolError::TooLarge { .. }) => {
                    self.steps.request_read();
                    self.kind = "a request over the limit";
                    // Its payload cannot be skipped safely: end the session.
                    tracing::warn!(%error, "request over the limit");
                    let failed = Response::Failed {
                        message: format!(
                            "{error} (executor-server --max-message-size); the session ends"
                        ),
                    };
                    let _ = self.reply(Reply::Message(failed));
                    self.writer.close();
                    return self.abandon();
                }
                Err(error) => {
                    tracing::info!(%error, "the client is gone");
                    return self.abandon();
                }
            };
            let closing = matches!(request, Request::Close);
            let reply = self.handle(request);
            flush_kernel_output();
            if self.reply(reply).is_err() {
                return self.abandon();
            }
            if closing {
                self.writer.close();
                return;
            }
            if let Some(name) = self.sent_object.take() {
                self.link_ahead(&name);
            }
        }
    }

    /// Ends a session the client left without `Close`: what it started is
    /// still waited for, so that nothing is cut off halfway.
    fn abandon(mut self) {
        if let Err(error) = self.close() {
            tracing::warn!(%error, "closing the abandoned session failed");
        }
    }

    fn handle(&mut self, request: Request) -> Reply {
        // The clock is read only for the log line.
        let started = tracing::enabled!(tracing::Level::DEBUG).then(Instant::now);
        let message = |result: Result<Response>| result.map(Reply::Message);
        let (kind, result) = match request {
            Request::SendBinary {
                name,
                format,
                bytes,
            } => (
                "send_binary",
                message(self.send_binary(name, format, bytes)),
            ),
            Request::Launch {
                entry,
                object,
                inputs,
                outputs,
            } => ("launch", self.launch(&entry, &object, inputs, &outputs)),
            Request::LaunchAsync { entry, object } => {
                ("launch_async", message(self.launch_async(&entry, &object)))
            }
            Request::Await(token) => ("await", message(self.await_launch(token))),
            Request::Call {
                symbol,
                layout,
                arguments,
            } => ("call", message(self.call(&symbol, layout, &arguments))),
            Request::Close => ("close", message(self.close().map(|()| Response::Done))),
            Request::Ping => (
                "ping",
                Err(RuntimeError::BadArguments(
                    "a Ping is answered only before the session's first other request".to_owned(),
                )),
            ),
            Request::Trace => ("trace", Ok(Reply::Message(self.steps.ask()))),
        };
        self.kind = kind;
        if let Some(started) = started {
            tracing::debug!(request = kind, elapsed = ?started.elapsed(), ok = result.is_ok(), "served");
        }
        result.unwrap_or_else(|error| {
            Reply::Message(Response::Failed {
                message: error.to_string(),
            })
        })
    }

    /// Sends the reply, or a `Failed` saying why it cannot be sent.
    fn reply(&mut self, reply: Reply) -> std::result::Result<(), ProtocolError> {
        if let Reply::Message(response) = reply {
            self.frame = match protocol::encode_frame(&response, self.max_message_size) {
                Ok(frame) => frame,
                Err(error) => protocol::encode_frame(&unsendable(&error), self.max_message_size)?,
            };
        }
        // The steps go out in the same write as the reply: the client reads
        // both at once.
        let reply_len = self.frame.len();
        if let Some(steps) = self.steps.served(self.kind) {
            let steps = protocol::encode_frame(&steps, self.max_message_size)?;
            self.frame.extend_from_slice(&steps);
        }
        let written = self.writer.write_all(&self.frame);
        self.frame.truncate(reply_len);
        written?;
        Ok(())
    }

    fn send_binary(
        &mut self,
        name: String,
        format: BinaryFormat,
        bytes: Vec<u8>,
    ) -> Result<Response> {
        if self.loaded.contains(&name) {
            return Ok(Response::Done);
        }
        // Loading runs the binary's own code (constructors): a crash or an
        // exit there is reported as that file's.
        let running = self.announcer.started(&load_time_code_of(&name));
        let loaded = match format {
            BinaryFormat::Asset => self.store_asset(&name, &bytes),
            // Linked from the bytes received, which an object linked a piece
            // at a time keeps: no file on the way (creating one can wait on
            // the file system's journal for milliseconds).
            BinaryFormat::RelocatableObject => self.steps.measure(
                || format!("link {name}"),
                || self.executor.load_object(&name, ObjectBytes::Owned(bytes)),
            ),
            BinaryFormat::SharedLibrary => self.load_library(&name, &bytes),
        };
        self.announcer.finished(running);
        loaded?;
        if format == BinaryFormat::RelocatableObject {
            self.sent_object = Some(name.clone());
        }
        self.loaded.insert(name);
        Ok(Response::Done)
    }

    /// Links the object file `name`, sent by the request just answered, if
    /// it waits to be linked whole at its first launch: while the client reads
    /// the answer and sends its next request (that launch, most likely), so
    /// the launch finds it linked. Only when another CPU can run the client
    /// meanwhile, and no request waits already. A crash of the linker is
    /// reported as the load's, as during the `send_binary`.
    fn link_ahead(&mut self, name: &str) {
        if !more_than_one_cpu()
            || !self.reader.buffer().is_empty()
            || !self.executor.waits_for_link(name)
        {
            return;
        }
        let running = self.announcer.started(&load_time_code_of(name));
        let linked = self.steps.measure(
            || format!("link {name} ahead"),
            || self.executor.link_ahead(name),
        );
        self.announcer.finished(running);
        if let Err(error) = linked {
            tracing::debug!(%error, "cannot link ahead");
        }
    }

    /// Stores a shared library in a file the server names (the client's
    /// path is only a name), which `dlopen` needs, and loads it.
    fn load_library(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        let format = BinaryFormat::SharedLibrary;
        let file = self
            .directory
            .join(format!("binary-{}.so", self.libraries_written));
        self.libraries_written += 1;
        write_private_file(&file, bytes).map_err(|error| RuntimeError::LoadFailed {
            format,
            path: name.to_owned(),
            reason: format!("cannot store it on the executor: {error}"),
        })?;
        self.executor.load_as(name, &file, format).inspect_err(|_| {
            let _ = std::fs::remove_file(&file);
        })
    }

    /// Stores an asset under its base name in the session's asset directory,
    /// the worker's working directory, where kernels open it by that name.
    fn store_asset(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        let failed = |reason: String| RuntimeError::LoadFailed {
            format: BinaryFormat::Asset,
            path: name.to_owned(),
            reason,
        };
        // Only the last component: nothing a client sends names a file
        // outside the session's directory.
        let base_name = Path::new(name)
            .file_name()
            .ok_or_else(|| failed("its path has no file name".to_owned()))?;
        write_private_file(&self.assets.join(base_name), bytes)
            .map_err(|error| failed(format!("cannot store it on the executor: {error}")))
    }

    fn launch(
        &mut self,
        entry: &str,
        object: &str,
        inputs: Vec<DenseBuffer>,
        shapes: &[OutputShape],
    ) -> Result<Reply> {
        check_launch(&inputs, shapes)?;
        let mut inputs: Vec<OwnedDescriptor> = inputs
            .into_iter()
            .map(OwnedDescriptor::from_dense)
            .collect();
        let response = self.run_launch(entry, object, &mut inputs, shapes);
        // The results are copied (or the launch failed): the inputs' buffers
        // are free for the next launch.
        self.spare_inputs = inputs.into_iter().map(OwnedDescriptor::into_data).collect();
        response
    }

    fn run_launch(
        &mut self,
        entry: &str,
        object: &str,
        inputs: &mut [OwnedDescriptor],
        shapes: &[OutputShape],
    ) -> Result<Reply> {
        let mut outputs: Vec<OwnedDescriptor> = shapes
            .iter()
            .map(|shape| OwnedDescriptor::empty(shape.rank as usize, shape.element_size as usize))
            .collect();
        let input_descriptors: Vec<Descriptor> =
            inputs.iter_mut().map(OwnedDescriptor::descriptor).collect();
        let output_descriptors: Vec<Descriptor> = outputs
            .iter_mut()
            .map(OwnedDescriptor::descriptor)
            .collect();

        // Reading the results back and freeing their buffers are part of
        // what the kernel is blamed for: a kernel that fills in a bad
        // descriptor, or one over a buffer `free` refuses, crashes it.
        let running = self.announcer.started(entry);
        let reply = self
            .steps
            .measure(
                || format!("run {}", kernel_name(entry)),
                || {
                    self.executor.launch_in_place(
                        entry,
                        object,
                        &input_descriptors,
                        &output_descriptors,
                    )
                },
            )
            .and_then(|()| {
                self.steps.measure(
                    || "pack results".to_owned(),
                    || write_results(&mut self.frame, &output_descriptors, self.max_message_size),
                )
            });
        // Only readable results are released: a descriptor that could not be
        // read is not trusted to point at a buffer of ours either.
        if reply.is_ok() {
            release_output_buffers(&output_descriptors, &input_descriptors);
        }
        self.announcer.finished(running);
        reply
    }

    fn launch_async(&mut self, entry: &str, object: &str) -> Result<Response> {
        let running = self.announcer.started(entry);
        match self.executor.launch_async(entry, object) {
            Ok(token) => {
                self.in_flight.insert(token, running);
                self.steps.launched(token, entry);
                Ok(Response::Token(token))
            }
            Err(error) => {
                self.announcer.finished(running);
                Err(error)
            }
        }
    }

    fn await_launch(&mut self, token: u64) -> Result<Response> {
        let awaited = self.executor.await_launch(token);
        self.steps.awaited(token);
        if let Some(running) = self.in_flight.remove(&token) {
            self.announcer.finished(running);
        }
        awaited.map(|()| Response::Done)
    }

    fn call(&mut self, symbol: &str, layout: Layout, arguments: &[u8]) -> Result<Response> {
        let running = self.announcer.started(symbol);
        let result = self.executor.call(symbol, layout, arguments);
        self.announcer.finished(running);
        result.map(Response::CallResult)
    }

    fn close(&mut self) -> Result<()> {
        let Self {
            executor,
            announcer,
            in_flight,
            ..
        } = self;
        // Each binary's destructors are announced as they run: a crash there
        // is reported as theirs.
        let mut destructors = None;
        let closed = executor.close_announcing(&mut |name| {
            // close waited for every async launch before the first of them.
            for (_, running) in in_flight.drain() {
                announcer.finished(running);
            }
            if let Some(running) = destructors.take() {
                announcer.finished(running);
            }
            destructors = Some(announcer.started(&destructors_of(name)));
        });
        if let Some(running) = destructors {
            announcer.finished(running);
        }
        for (_, running) in in_flight.drain() {
            announcer.finished(running);
        }
        closed
    }
}

/// Makes the session's `assets` directory (which the server made with the
/// session's directory) the worker's working directory: kernels open the
/// session's assets by name.
fn enter_asset_directory(session_dir: &Path) -> std::io::Result<PathBuf> {
    let assets = work_dir::asset_directory(session_dir);
    std::env::set_current_dir(&assets)?;
    Ok(assets)
}

/// Writes a received binary where only this user can read it, never
/// replacing an existing file.
fn write_private_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    // Not synced: the file is for this process only and removed with the
    // session, so it never needs to outlive a crash (a sync costs a
    // send_binary a disk flush).
    file.write_all(bytes)
}

fn check_launch(inputs: &[DenseBuffer], shapes: &[OutputShape]) -> Result<()> {
    for (index, input) in inputs.iter().enumerate() {
        if !input.is_consistent() {
            return Err(RuntimeError::BadArguments(format!(
                "input {index} has {} bytes, not what sizes {:?} of {}-byte elements need",
                input.data.len(),
                input.sizes,
                input.element_size
            )));
        }
    }
    for (index, shape) in shapes.iter().enumerate() {
        // The rank was checked against the protocol's limit as it was read.
        if usize::try_from(shape.element_size).is_err() {
            return Err(RuntimeError::BadArguments(format!(
                "output {index} has {}-byte elements",
                shape.element_size
            )));
        }
    }
    Ok(())
}

/// Writes the frame of the filled output descriptors' elements into `frame`,
/// refusing a result that could never be sent (or that a bogus descriptor
/// makes look enormous) before copying any.
fn write_results(
    frame: &mut Vec<u8>,
    outputs: &[Descriptor],
    max_message_size: u32,
) -> Result<Reply> {
    for (index, output) in outputs.iter().enumerate() {
        let problem = if (0..output.rank()).any(|dim| output.size(dim) < 0) {
            "has a negative size"
        } else if output
            .dense_len()
            .is_none_or(|len| len > max_message_size as usize)
        {
            "does not fit in a message"
        } else {
            continue;
        };
        return Err(RuntimeError::BadArguments(format!(
            "result {index} of sizes {:?} with {}-byte elements {problem} ({max_message_size} \
             bytes at most)",
            output.sizes(),
            output.element_size()
        )));
    }
    Ok(
        match protocol::write_launched_frame(frame, outputs, max_message_size) {
            Ok(()) => Reply::Launched,
            Err(error) => Reply::Message(unsendable(&error)),
        },
    )
}

/// What a client is told instead of a reply that cannot be sent.
fn unsendable(error: &ProtocolError) -> Response {
    Response::Failed {
        message: format!("the reply cannot be sent: {error} (executor-server --max-message-size)"),
    }
}

/// Frees the buffers a kernel allocated for its outputs (their contents have
/// been copied for the reply). A buffer the worker does not own is left alone:
/// an input's (a kernel may return its argument or a view of it), a global's
/// (MLIR's `0xdeadbeef` marker), static memory (a C kernel's static array) or
/// one already freed (two outputs may share one buffer).
fn release_output_buffers(outputs: &[Descriptor], inputs: &[Descriptor]) {
    // Sorted: the buffers not to free, and each one freed so far.
    let mut kept: Vec<*mut u8> = Vec::with_capacity(inputs.len() + outputs.len() + 2);
    kept.extend([
        std::ptr::null_mut(),
        executor_abi::descriptor::GLOBAL_BUFFER as *mut u8,
    ]);
    kept.extend(inputs.iter().map(Descriptor::allocated));
    kept.sort_unstable();
    for output in outputs {
        let buffer = output.allocated();
        match kept.binary_search(&buffer) {
            Ok(_) => continue,
            Err(position) => kept.insert(position, buffer),
        }
        if static_memory::holds(buffer) {
            continue;
        }
        // SAFETY: by the ABI, a kernel's result buffers are malloc'ed and
        // owned by the caller, which is this worker; each is freed once.
        unsafe { libc::free(buffer.cast()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reply `write_results` makes of one rank-1 result of `size`
    /// 4-byte elements, with messages of at most `max` bytes.
    fn result_of_size(size: i64, max: u32) -> Result<Reply> {
        let data = [0u8; 16];
        let mut words = vec![data.as_ptr() as i64, data.as_ptr() as i64, 0, size, 1];
        // SAFETY: a rank-1 descriptor; its elements are read only when its
        // size is one `data` holds.
        let output = unsafe { Descriptor::from_raw(words.as_mut_ptr().cast(), 1, 4) };
        write_results(&mut Vec::new(), &[output], max)
    }

    #[test]
    fn a_result_is_refused_for_what_is_wrong_with_its_sizes() {
        assert!(matches!(result_of_size(4, 1024), Ok(Reply::Launched)));
        let message = |result: Result<Reply>| match result {
            Err(error) => error.to_string(),
            Ok(_) => panic!("accepted"),
        };
        let negative = message(result_of_size(-1, 1024));
        assert!(
            negative.contains("sizes [-1]") && negative.contains("has a negative size"),
            "{negative}"
        );
        let large = message(result_of_size(1 << 20, 1024));
        assert!(large.contains("does not fit in a message"), "{large}");
    }
}
