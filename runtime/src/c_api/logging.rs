//! The host process's logger, set up at the first call: `EXECUTOR_LOG`'s
//! filter when it is set; else warnings and errors only, through a logger
//! made at the first of them. Most programs log nothing: making the logger
//! (its span registry above all) was a fifth of the client's CPU time in the
//! first `executor.open`.

use std::sync::OnceLock;

use tracing::{
    Dispatch, Event, Level, Metadata, Subscriber, level_filters::LevelFilter, span,
    subscriber::Interest,
};
use tracing_subscriber::{
    EnvFilter,
    fmt::{
        self, SubscriberBuilder,
        format::{DefaultFields, Format},
    },
    util::SubscriberInitExt,
};

/// The environment variable holding the log filter (`warn` when unset).
const LOG_ENV: &str = "EXECUTOR_LOG";

/// Installs the process's logger, unless one is installed already.
pub fn init() {
    let filter = std::env::var_os(LOG_ENV).and_then(|_| EnvFilter::try_from_env(LOG_ENV).ok());
    // Err: a logger is installed already (the embedding program's).
    let _ = match filter {
        Some(filter) => logger().with_env_filter(filter).try_init().is_ok(),
        None => Warnings::default().try_init().is_ok(),
    };
}

/// Lines to stderr, in colour on a terminal.
fn logger() -> SubscriberBuilder<DefaultFields, Format, LevelFilter, fn() -> std::io::Stderr> {
    fmt::fmt()
        .with_writer(std::io::stderr as fn() -> std::io::Stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
}

/// Warnings and errors, logged by a [`logger`] made at the first of them.
#[derive(Default)]
struct Warnings {
    logger: OnceLock<Dispatch>,
}

impl Warnings {
    fn logger(&self) -> &Dispatch {
        self.logger
            .get_or_init(|| Dispatch::new(logger().with_max_level(Level::WARN).finish()))
    }
}

impl Subscriber for Warnings {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if self.enabled(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= Level::WARN
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::WARN)
    }

    fn new_span(&self, span: &span::Attributes<'_>) -> span::Id {
        self.logger().new_span(span)
    }

    fn record(&self, span: &span::Id, values: &span::Record<'_>) {
        self.logger().record(span, values);
    }

    fn record_follows_from(&self, span: &span::Id, follows: &span::Id) {
        self.logger().record_follows_from(span, follows);
    }

    fn event(&self, event: &Event<'_>) {
        self.logger().event(event);
    }

    fn enter(&self, span: &span::Id) {
        self.logger().enter(span);
    }

    fn exit(&self, span: &span::Id) {
        self.logger().exit(span);
    }

    fn clone_span(&self, id: &span::Id) -> span::Id {
        self.logger().clone_span(id)
    }

    fn try_close(&self, id: span::Id) -> bool {
        self.logger().try_close(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the default dispatcher, a [`Warnings`], has made its logger.
    fn logger_made() -> bool {
        tracing::dispatcher::get_default(|dispatch| {
            dispatch
                .downcast_ref::<Warnings>()
                .expect("a Warnings")
                .logger
                .get()
                .is_some()
        })
    }

    #[test]
    fn the_logger_is_made_at_the_first_warning_and_only_warnings_and_errors_pass() {
        tracing::subscriber::with_default(Warnings::default(), || {
            assert!(!tracing::enabled!(Level::INFO));
            tracing::info!("not logged");
            tracing::info_span!("not recorded").in_scope(|| {});
            assert!(!logger_made());
            assert!(tracing::enabled!(Level::WARN) && tracing::enabled!(Level::ERROR));
            tracing::warn!("the test of the runtime's lazily made logger");
            assert!(logger_made());
        });
    }
}
