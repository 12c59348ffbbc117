//! `/proc/<pid>/stat` of a process: its fields after the command name.

/// The parent of the process `pid`; None if there is no such process.
pub(crate) fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The state, then the parent's pid.
    fields_after_name(&stat)?.nth(1)?.parse().ok()
}

/// The fields of a `/proc/<pid>/stat` line that follow the command name,
/// from the state (field 3) on. The name, in parentheses, may hold spaces
/// and parentheses, so the fields start after the last `)`.
pub(crate) fn fields_after_name(stat: &str) -> Option<std::str::SplitWhitespace<'_>> {
    let (_, fields) = stat.rsplit_once(')')?;
    Some(fields.split_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_start_after_a_name_holding_parentheses_and_spaces() {
        let stat = "42 (a (b) c) S 7 42 42 0";
        let fields: Vec<&str> = fields_after_name(stat).unwrap().collect();
        assert_eq!(fields, ["S", "7", "42", "42", "0"]);
        assert!(fields_after_name("42 no name").is_none());
    }

    #[test]
    fn a_child_has_this_process_as_parent() {
        let mut child = std::process::Command::new("sleep")
            .arg("10")
            .spawn()
            .unwrap();
        assert_eq!(parent_of(child.id()), Some(std::process::id()));
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(parent_of(child.id()), None, "reaped");
    }
}
