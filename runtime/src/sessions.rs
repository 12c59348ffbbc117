//! The process-wide table of open sessions and of async launches in flight,
//! behind the integer handles the C ABI hands out.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
};

use crate::{
    address::Address,
    error::{Result, RuntimeError},
    executor::Executor,
    local::LocalExecutor,
    remote::RemoteExecutor,
};

/// An open session: where it goes, and what runs it.
#[derive(Clone)]
pub struct Session {
    pub address: Address,
    pub executor: Arc<dyn Executor>,
}

#[derive(Default)]
struct Table {
    sessions: HashMap<i64, Session>,
    by_address: HashMap<Address, i64>,
    /// Async launches in flight: token, then its session and the executor's own token.
    launches: HashMap<i64, (i64, u64)>,
    last_handle: i64,
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

fn table() -> MutexGuard<'static, Option<Table>> {
    TABLE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn with_table<T>(body: impl FnOnce(&mut Table) -> T) -> T {
    body(table().get_or_insert_with(Table::default))
}

impl Table {
    fn next_handle(&mut self) -> i64 {
        self.last_handle += 1;
        self.last_handle
    }
}

/// Opens a session with the executor at `address`, or returns the one already
/// open there: `open` is idempotent per address.
pub fn open(address: &str) -> Result<i64> {
    let address = crate::address::parse(address)?;
    if let Some(handle) = with_table(|table| table.by_address.get(&address).copied()) {
        return Ok(handle);
    }
    // Connecting may take a while: not under the lock.
    let executor: Arc<dyn Executor> = match &address {
        Address::Local { .. } => Arc::new(LocalExecutor::new()?),
        Address::Remote { .. } => Arc::new(RemoteExecutor::connect(&address.to_string())?),
    };
    Ok(with_table(|table| {
        if let Some(handle) = table.by_address.get(&address) {
            return *handle;
        }
        let handle = table.next_handle();
        table.by_address.insert(address.clone(), handle);
        table.sessions.insert(handle, Session { address, executor });
        handle
    }))
}

pub fn get(handle: i64) -> Result<Session> {
    with_table(|table| table.sessions.get(&handle).cloned()).ok_or(RuntimeError::BadSession(handle))
}

/// Forgets the session; the caller then closes its executor.
pub fn remove(handle: i64) -> Result<Session> {
    with_table(|table| {
        let session = table
            .sessions
            .remove(&handle)
            .ok_or(RuntimeError::BadSession(handle))?;
        table.by_address.remove(&session.address);
        table.launches.retain(|_, (owner, _)| *owner != handle);
        Ok(session)
    })
}

/// Records an async launch of `session`; returns its token.
pub fn add_launch(session: i64, executor_token: u64) -> i64 {
    with_table(|table| {
        let token = table.next_handle();
        table.launches.insert(token, (session, executor_token));
        token
    })
}

/// Takes the launch behind `token` (a token is awaited once).
pub fn take_launch(token: i64) -> Result<(Session, u64)> {
    let (session, executor_token) =
        with_table(|table| table.launches.remove(&token)).ok_or(RuntimeError::BadToken(token))?;
    Ok((get(session)?, executor_token))
}
