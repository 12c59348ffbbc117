//! Where `executor-dispatch` opens sessions, sends objects and closes sessions,
//! decided from what each host function uses and whom it calls, before the IR
//! changes. Addresses, target modules and functions are indices here.
//!
//! A session is one per address in the whole process (`executor.open` is
//! idempotent), so closing it in one function closes it under every caller
//! still using it. A function therefore closes an address only when no other
//! frame can hold that address while it runs: it is not reached, through one
//! or more calls, from a function that opens the same address, and its symbol
//! is not used other than by `func.call` (then calls that cannot be seen may
//! reach it). Leaving a session open is always safe: the outermost holder
//! closes it, or the runtime at exit.

use std::collections::{BTreeSet, VecDeque};

/// What one host function uses.
#[derive(Clone, Debug, Default)]
pub struct FunctionUse {
    /// The target modules whose kernels it calls.
    pub modules: BTreeSet<usize>,
    /// The host functions it calls with `func.call`.
    pub callees: Vec<usize>,
    /// Whether it calls through a value (`func.call_indirect`): it may then
    /// call any function whose symbol escapes.
    pub calls_indirectly: bool,
    /// Whether its symbol is used other than as a `func.call` callee.
    pub escapes: bool,
}

/// The session ops of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionSessions {
    /// The addresses opened at its start, in index order.
    pub opens: Vec<usize>,
    /// The target modules whose objects are sent after the opens.
    pub sends: Vec<usize>,
    /// The addresses closed before each of its returns.
    pub closes: Vec<usize>,
}

/// The session ops of each function. `module_addresses[m]` is the address of
/// target module `m`. With a `setup` function, it opens every address and
/// sends every object, the others only open what they use, and nothing is
/// closed (the runtime closes sessions at exit).
pub fn plan(
    module_addresses: &[usize],
    functions: &[FunctionUse],
    setup: Option<usize>,
) -> Vec<FunctionSessions> {
    let address_count = module_addresses.iter().max().map_or(0, |last| last + 1);
    let opens: Vec<BTreeSet<usize>> = functions
        .iter()
        .map(|function| {
            function
                .modules
                .iter()
                .map(|module| module_addresses[*module])
                .collect()
        })
        .collect();
    if let Some(setup) = setup {
        return (0..functions.len())
            .map(|function| {
                if function == setup {
                    FunctionSessions {
                        opens: (0..address_count).collect(),
                        sends: (0..module_addresses.len()).collect(),
                        closes: Vec::new(),
                    }
                } else {
                    FunctionSessions {
                        opens: opens[function].iter().copied().collect(),
                        ..FunctionSessions::default()
                    }
                }
            })
            .collect();
    }

    let successors = successors(functions);
    let reached_while_held: Vec<Vec<bool>> = (0..address_count)
        .map(|address| {
            let holders = (0..functions.len()).filter(|f| opens[*f].contains(&address));
            reached_from(holders, &successors)
        })
        .collect();
    (0..functions.len())
        .map(|function| FunctionSessions {
            opens: opens[function].iter().copied().collect(),
            sends: functions[function].modules.iter().copied().collect(),
            closes: opens[function]
                .iter()
                .copied()
                .filter(|address| {
                    !functions[function].escapes && !reached_while_held[*address][function]
                })
                .collect(),
        })
        .collect()
}

/// The functions each function may call: its callees, and every escaping
/// function if it calls through a value.
fn successors(functions: &[FunctionUse]) -> Vec<Vec<usize>> {
    let escaping: Vec<usize> = (0..functions.len())
        .filter(|function| functions[*function].escapes)
        .collect();
    functions
        .iter()
        .map(|function| {
            let mut next = function.callees.clone();
            if function.calls_indirectly {
                next.extend(&escaping);
            }
            next
        })
        .collect()
}

/// Which functions are reached from `starts` through one or more calls.
fn reached_from(starts: impl Iterator<Item = usize>, successors: &[Vec<usize>]) -> Vec<bool> {
    let mut reached = vec![false; successors.len()];
    let mut queue: VecDeque<usize> = starts
        .flat_map(|start| successors[start].iter().copied())
        .collect();
    while let Some(function) = queue.pop_front() {
        if !reached[function] {
            reached[function] = true;
            queue.extend(&successors[function]);
        }
    }
    reached
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses(modules: &[usize], callees: &[usize]) -> FunctionUse {
        FunctionUse {
            modules: modules.iter().copied().collect(),
            callees: callees.to_vec(),
            ..FunctionUse::default()
        }
    }

    fn sessions(opens: &[usize], sends: &[usize], closes: &[usize]) -> FunctionSessions {
        FunctionSessions {
            opens: opens.to_vec(),
            sends: sends.to_vec(),
            closes: closes.to_vec(),
        }
    }

    #[test]
    fn a_function_opens_sends_and_closes_what_it_uses() {
        // Modules 0 and 1 share address 0; module 2 is at address 1.
        let plan = plan(&[0, 0, 1], &[uses(&[2, 0, 1], &[]), uses(&[], &[])], None);
        assert_eq!(
            plan,
            [
                sessions(&[0, 1], &[0, 1, 2], &[0, 1]),
                sessions(&[], &[], &[])
            ]
        );
    }

    #[test]
    fn a_callee_of_a_holder_leaves_the_address_open() {
        // main (address 0) -> middle (nothing) -> leaf (addresses 0 and 1).
        let plan = plan(
            &[0, 1],
            &[uses(&[0], &[1]), uses(&[], &[2]), uses(&[0, 1], &[])],
            None,
        );
        assert_eq!(plan[0].closes, [0]);
        assert_eq!(
            plan[2].closes,
            [1],
            "only address 1 is free to close in the leaf"
        );
    }

    #[test]
    fn callers_without_sessions_let_their_callee_close() {
        let plan = plan(&[0], &[uses(&[], &[1, 1]), uses(&[0], &[])], None);
        assert_eq!(plan[1], sessions(&[0], &[0], &[0]));
    }

    #[test]
    fn a_recursive_holder_never_closes() {
        let plan = plan(&[0], &[uses(&[0], &[0])], None);
        assert_eq!(plan[0].closes, Vec::<usize>::new());
    }

    #[test]
    fn escaping_functions_and_what_indirect_calls_reach_stay_open() {
        // 0 calls through a value; 1 escapes and calls 2; 3 only escapes.
        let mut functions = vec![
            uses(&[0], &[]),
            uses(&[], &[2]),
            uses(&[0], &[]),
            uses(&[0], &[]),
        ];
        functions[0].calls_indirectly = true;
        functions[1].escapes = true;
        functions[3].escapes = true;
        let plan = plan(&[0], &functions, None);
        assert_eq!(plan[0].closes, [0]);
        assert_eq!(plan[2].closes, Vec::<usize>::new(), "reached through 1");
        assert_eq!(plan[3].closes, Vec::<usize>::new(), "escapes");
    }

    #[test]
    fn a_setup_function_opens_and_sends_everything_and_nothing_closes() {
        let plan = plan(&[0, 1, 0], &[uses(&[], &[]), uses(&[1], &[])], Some(0));
        assert_eq!(
            plan,
            [sessions(&[0, 1], &[0, 1, 2], &[]), sessions(&[1], &[], &[])]
        );
    }
}
