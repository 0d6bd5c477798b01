//! The shape rules of issue 24, kept: no non-test source file over 1,000
//! lines and no function over 150 lines, unless the README names it (the
//! "Long functions and files" list under Layout). The function scan counts
//! braces outside strings and comments; it is a guard, not a parser.

use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 1000;
const MAX_FN_LINES: usize = 150;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "target" && name != "tests" {
                sources(&p, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(p);
        }
    }
}

/// A line with string/char literals and `//` comments removed (roughly).
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '/' if chars.peek() == Some(&'/') => break,
            '\'' => {
                // A char literal ('{', '\n'): skip it; a lifetime stays.
                let rest: String = chars.clone().take(3).collect();
                if let Some(escaped) = rest.strip_prefix('\\') {
                    if let Some(end) = escaped.find('\'') {
                        for _ in 0..end + 2 {
                            chars.next();
                        }
                    }
                } else if rest.chars().nth(1) == Some('\'') {
                    chars.next();
                    chars.next();
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn fn_name(line: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("pub ")
        .or_else(|| t.strip_prefix("pub(crate) "))
        .unwrap_or(t);
    let t = t.strip_prefix("const ").unwrap_or(t);
    let t = t.strip_prefix("async ").unwrap_or(t);
    let t = t.strip_prefix("unsafe ").unwrap_or(t);
    let rest = t.strip_prefix("fn ")?;
    Some(
        rest.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect(),
    )
}

/// (name, first line, length) of every function longer than the limit, up
/// to the file's `#[cfg(test)]` module.
fn long_functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let Some(name) = fn_name(lines[i]) else {
            i += 1;
            continue;
        };
        let (mut depth, mut started, mut j) = (0i64, false, i);
        while j < lines.len() {
            let c = code_of(lines[j]);
            if !started && c.contains(';') && !c.contains('{') {
                break;
            }
            depth += c.matches('{').count() as i64 - c.matches('}').count() as i64;
            started |= c.contains('{');
            if started && depth <= 0 {
                break;
            }
            j += 1;
        }
        if started && j - i + 1 > MAX_FN_LINES {
            out.push((name, i + 1, j - i + 1));
        }
        i = if started { j + 1 } else { i + 1 };
    }
    out
}

#[test]
fn no_long_files_or_functions_but_those_the_readme_names() {
    let root = pakrat_testkit::repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let mut files = Vec::new();
    sources(&root.join("crates"), &mut files);
    assert!(files.len() > 100, "found only {} sources", files.len());
    let mut problems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read a source");
        let rel = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        let n = text.lines().count();
        if n > MAX_FILE_LINES && !readme.contains(&format!("`{rel}`")) {
            problems.push(format!("{rel}: {n} lines"));
        }
        for (name, at, len) in long_functions(&text) {
            if !readme.contains(&format!("`{rel}` `{name}`")) {
                problems.push(format!("{rel}:{at} fn {name}: {len} lines"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "over {MAX_FILE_LINES} lines per file or {MAX_FN_LINES} per function, \
         and not named in the README:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_scan_sees_a_long_function() {
    let mut text =
        String::from("fn short() {\n    let s = \"}\";\n}\npub fn long(x: u8) -> u8 {\n");
    for _ in 0..MAX_FN_LINES {
        text.push_str("    let c = '{';\n");
    }
    text.push_str("    x\n}\n#[cfg(test)]\nmod tests {\n    fn also_long() {\n");
    for _ in 0..MAX_FN_LINES {
        text.push_str("        ;\n");
    }
    text.push_str("    }\n}\n");
    let found = long_functions(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "long");
    assert_eq!(found[0].2, MAX_FN_LINES + 3);
}
