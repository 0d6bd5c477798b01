//! Control flow rebuilt from jumps: the UnrealScript compiler's patterns.
//!
//! - `if (c) A`: `JumpIfNot(c, end) A end:`; with `else B`: `A` ends with
//!   `Jump(after)`, and `B` runs from `end` to `after` (an empty `A`, as
//!   in `if (c) {} else B`, is the `Jump(after)` alone).
//! - `while (c) A` (and `for`, written as `while`): `top: JumpIfNot(c, end)
//!   A Jump(top) end:`.
//! - `do A until (c)`: `top: A JumpIfNot(c, top)`.
//! - `foreach it(...) A`: `Iterator(it, end) A IteratorNext end: IteratorPop`.
//! - `switch (x)`: `Switch(x) Case(next, v) … Case(0xFFFF) …`; `break` is a
//!   jump past the last case.
//! - A jump to the end of the innermost loop is `break`, to its top
//!   `continue`; any other jump is a `goto` to a numbered label.
//!
//! Never panics: every range is checked, and what matches no pattern is
//! written as a labelled `goto`.

use std::collections::BTreeSet;

use super::read::{Located, Stmt};

/// Structured lines: (indent, text).
pub type Lines = Vec<(usize, String)>;

#[derive(Clone, Copy)]
struct Loop {
    brk: u16,
    cont: u16,
    /// A second `continue` target: a `while` loop's closing jump back
    /// (the compiler's `continue` jumps there, not to the top).
    cont2: Option<u16>,
    /// A `foreach`: `continue` is `IteratorNext; Jump(end)`, `break` a
    /// plain `Jump(end)`.
    foreach: bool,
}

impl Loop {
    fn is_cont(&self, t: u16) -> bool {
        self.cont == t || self.cont2 == Some(t)
    }
}

struct Builder<'s> {
    s: &'s [Located],
    out: Lines,
    gotos: BTreeSet<u16>,
    labels: Vec<(String, u32)>,
    depth: u32,
}

/// Build structured lines from the statements of one body. `labels` are
/// state labels (printed where their offset starts a statement).
pub fn structure(s: &[Located], labels: &[(String, u32)]) -> Lines {
    let mut b = Builder {
        s,
        out: Vec::new(),
        gotos: BTreeSet::new(),
        labels: labels.to_vec(),
        depth: 0,
    };
    b.block(0, s.len(), 1, None, None);
    if b.gotos.is_empty() {
        return b.out;
    }
    // Second pass: now the goto targets are known, print their labels.
    let gotos = std::mem::take(&mut b.gotos);
    for t in &gotos {
        b.labels.push((format!("J0x{t:04X}"), u32::from(*t)));
    }
    b.out.clear();
    b.block(0, s.len(), 1, None, None);
    b.out
}

impl Builder<'_> {
    fn index_of(&self, at: u16, from: usize, to: usize) -> Option<usize> {
        (from..to).find(|&k| self.s[k].at == at)
    }

    fn end_at(&self, to: usize) -> u16 {
        self.s.get(to).map_or(u16::MAX, |l| l.at)
    }

    fn line(&mut self, ind: usize, t: String) {
        self.out.push((ind, t));
    }

    fn block(&mut self, from: usize, to: usize, ind: usize, lp: Option<Loop>, sw: Option<u16>) {
        self.depth += 1;
        if self.depth > 200 {
            for k in from..to {
                self.line(
                    ind,
                    format!("// too deeply nested: statement at {:#x}", self.s[k].at),
                );
            }
            self.depth -= 1;
            return;
        }
        let mut i = from;
        while i < to {
            let at = self.s[i].at;
            let names: Vec<String> = self
                .labels
                .iter()
                .filter(|l| l.1 == u32::from(at))
                .map(|l| l.0.clone())
                .collect();
            for n in names {
                self.line(ind.saturating_sub(1), format!("{n}:"));
            }
            // A backward JumpIfNot to here closes a do/until.
            if let Some(k) = (i + 1..to)
                .rev()
                .find(|&k| matches!(&self.s[k].stmt, Stmt::JumpIfNot(t, _) if *t == at))
            {
                let Stmt::JumpIfNot(_, c) = &self.s[k].stmt else {
                    unreachable!()
                };
                let c = c.clone();
                self.line(ind, "do".into());
                self.line(ind, "{".into());
                let l = Loop {
                    brk: self.end_at(k + 1),
                    cont: self.s[k].at,
                    cont2: None,
                    foreach: false,
                };
                self.block(i, k, ind + 1, Some(l), None);
                self.line(ind, "}".into());
                self.line(ind, format!("until ({c});"));
                i = k + 1;
                continue;
            }
            i = self.one(i, to, ind, lp, sw);
        }
        self.depth -= 1;
    }

    /// Write statement `i` (and what it opens); returns the next index.
    fn one(&mut self, i: usize, to: usize, ind: usize, lp: Option<Loop>, sw: Option<u16>) -> usize {
        let at = self.s[i].at;
        match self.s[i].stmt.clone() {
            Stmt::JumpIfNot(t, c) if t > at => self.jump_if_not(i, to, ind, t, c, lp, sw),
            Stmt::Jump(t) => {
                let after_next = i > 0 && matches!(self.s[i - 1].stmt, Stmt::IteratorNext);
                let text = if lp.is_some_and(|l| l.foreach && l.brk == t) {
                    if after_next { "continue;" } else { "break;" }.to_string()
                } else if lp.is_some_and(|l| l.brk == t) || sw == Some(t) {
                    "break;".to_string()
                } else if lp.is_some_and(|l| l.is_cont(t)) {
                    "continue;".to_string()
                } else if self.index_of(t, i + 1, to).is_none() && t == self.end_at(to) {
                    // A jump to the end of this block: nothing to write
                    // (the end of an `if` inside a loop body, say).
                    String::new()
                } else {
                    self.gotos.insert(t);
                    format!("goto J0x{t:04X};")
                };
                if !text.is_empty() {
                    self.line(ind, text);
                }
                i + 1
            }
            Stmt::Iterator(e, end) => {
                let stop = self.index_of(end, i + 1, to).unwrap_or(to);
                self.line(ind, format!("foreach {e}"));
                self.line(ind, "{".into());
                let mut body_end = stop;
                if body_end > i + 1 && matches!(self.s[body_end - 1].stmt, Stmt::IteratorNext) {
                    body_end -= 1;
                }
                let l = Loop {
                    brk: end,
                    cont: end,
                    cont2: None,
                    foreach: true,
                };
                self.block(i + 1, body_end, ind + 1, Some(l), None);
                self.line(ind, "}".into());
                if stop < to && matches!(self.s[stop].stmt, Stmt::IteratorPop) {
                    stop + 1
                } else {
                    stop
                }
            }
            Stmt::Switch(e) => self.switch(i, to, ind, e, lp),
            other => {
                self.simple(ind, other);
                i + 1
            }
        }
    }

    fn simple(&mut self, ind: usize, s: Stmt) {
        let t = match s {
            Stmt::Expr(e) => format!("{e};"),
            Stmt::Return(Some(e)) if !e.is_empty() => format!("return {e};"),
            Stmt::Return(_) => "return;".into(),
            Stmt::JumpIfNot(t, c) => {
                self.gotos.insert(t);
                format!("if (!({c})) goto J0x{t:04X};")
            }
            Stmt::Case(_, Some(v)) => format!("case {v}:"),
            Stmt::Case(_, None) => "default:".into(),
            Stmt::Stop => "stop;".into(),
            Stmt::Goto(e) => format!("goto {e};"),
            Stmt::Assert(e) => format!("assert({e});"),
            Stmt::IteratorPop | Stmt::IteratorNext | Stmt::Nothing | Stmt::Labels(_) => return,
            Stmt::Jump(_) | Stmt::Iterator(..) | Stmt::Switch(_) => return,
        };
        self.line(ind, t);
    }

    #[allow(clippy::too_many_arguments)]
    fn jump_if_not(
        &mut self,
        i: usize,
        to: usize,
        ind: usize,
        t: u16,
        c: String,
        lp: Option<Loop>,
        sw: Option<u16>,
    ) -> usize {
        let at = self.s[i].at;
        let Some(target) = self.index_of(t, i + 1, to).or_else(|| {
            // A jump to the end of this block.
            (t == self.end_at(to)).then_some(to)
        }) else {
            self.simple(ind, Stmt::JumpIfNot(t, c));
            return i + 1;
        };
        let last = target.checked_sub(1).filter(|&l| l > i);
        let last_jump = last.and_then(|l| match self.s[l].stmt {
            Stmt::Jump(j) => Some((l, j)),
            _ => None,
        });
        // The loop's top: the condition, or statements that do nothing
        // just before it (Unreal 2 XMP's `DebugInfo`, where its jump back
        // lands).
        let is_top = |j: u16| {
            j == at
                || (0..i)
                    .rev()
                    .take_while(|&k| matches!(self.s[k].stmt, Stmt::Nothing))
                    .any(|k| self.s[k].at == j)
        };
        match last_jump {
            Some((l, j)) if is_top(j) => {
                self.while_loop(i, l, ind, t, c, j);
                target
            }
            Some((l, j))
                if j > t
                    // An empty `if` branch before an `else` is the jump
                    // alone; in a loop, a jump alone to the end of the
                    // body is read as `continue`, as before.
                    && (l > i + 1 || lp.is_none() || j != self.end_at(to))
                    && (!lp.is_some_and(|x| x.brk == j || x.is_cont(j))
                        || j == self.end_at(to))
                    && sw != Some(j) =>
            {
                let after = self
                    .index_of(j, target, to)
                    .or_else(|| (j == self.end_at(to)).then_some(to));
                if let Some(after) = after {
                    self.line(ind, format!("if ({c})"));
                    self.line(ind, "{".into());
                    self.block(i + 1, l, ind + 1, lp, sw);
                    self.line(ind, "}".into());
                    self.line(ind, "else".into());
                    self.line(ind, "{".into());
                    self.block(target, after, ind + 1, lp, sw);
                    self.line(ind, "}".into());
                    return after;
                }
                self.plain_if(i, target, ind, c, lp, sw)
            }
            // An empty `else`: the compiler's jump over it lands where the
            // condition's does (`if (c) { A } else { }`). A jump there that
            // a loop or switch explains stays `continue`/`break`, and so
            // does one of a `switch` inside the branch (its last `break`).
            Some((l, j))
                if j == t
                    && !lp.is_some_and(|x| x.brk == j || x.is_cont(j))
                    && sw != Some(j)
                    && !self.s[i + 1..l].iter().any(|x| {
                        matches!(x.stmt, Stmt::Switch(_))
                            || matches!(x.stmt, Stmt::Jump(k) | Stmt::JumpIfNot(k, _) if k == t)
                    }) =>
            {
                self.line(ind, format!("if ({c})"));
                self.line(ind, "{".into());
                self.block(i + 1, l, ind + 1, lp, sw);
                self.line(ind, "}".into());
                self.line(ind, "else".into());
                self.line(ind, "{".into());
                self.line(ind, "}".into());
                target
            }
            _ => self.plain_if(i, target, ind, c, lp, sw),
        }
    }

    /// `while (c)` over statements `i+1..l` (`l` is the jump back, to
    /// `top`), or
    /// `for (init; c; step)` when a jump inside goes to the last body
    /// statement (a `continue` of a `for`) and the line before the loop
    /// assigns what the step changes.
    #[allow(clippy::too_many_arguments)]
    fn while_loop(&mut self, i: usize, l: usize, ind: usize, t: u16, c: String, top: u16) {
        let step = l
            .checked_sub(1)
            .filter(|&k| k > i)
            .and_then(|k| match &self.s[k].stmt {
                Stmt::Expr(e) => {
                    let to_step = (i + 1..k)
                        .any(|j| matches!(self.s[j].stmt, Stmt::Jump(x) if x == self.s[k].at));
                    Some((k, e.clone(), to_step))
                }
                _ => None,
            });
        let init = match self.out.last() {
            Some((li, text)) if *li == ind && text.ends_with(';') && text.contains(" = ") => {
                Some(text.trim_end_matches(';').to_string())
            }
            _ => None,
        };
        if let (Some((k, e, true)), Some(init)) = (&step, &init) {
            let var = init.split(" = ").next().unwrap_or("");
            if !var.is_empty() && e.contains(var) {
                self.out.pop();
                self.line(ind, format!("for ({init}; {c}; {e})"));
                self.line(ind, "{".into());
                let lp = Loop {
                    brk: t,
                    cont: self.s[*k].at,
                    cont2: None,
                    foreach: false,
                };
                self.block(i + 1, *k, ind + 1, Some(lp), None);
                self.line(ind, "}".into());
                return;
            }
        }
        self.line(ind, format!("while ({c})"));
        self.line(ind, "{".into());
        let lp = Loop {
            brk: t,
            cont: top,
            cont2: Some(self.s[l].at),
            foreach: false,
        };
        self.block(i + 1, l, ind + 1, Some(lp), None);
        self.line(ind, "}".into());
    }

    fn plain_if(
        &mut self,
        i: usize,
        target: usize,
        ind: usize,
        c: String,
        lp: Option<Loop>,
        sw: Option<u16>,
    ) -> usize {
        self.line(ind, format!("if ({c})"));
        self.line(ind, "{".into());
        self.block(i + 1, target, ind + 1, lp, sw);
        self.line(ind, "}".into());
        target
    }

    fn switch(&mut self, i: usize, to: usize, ind: usize, e: String, lp: Option<Loop>) -> usize {
        // The cases: follow each Case's `next` offset.
        let mut cases = Vec::new();
        let mut k = i + 1;
        while k < to {
            match &self.s[k].stmt {
                Stmt::Case(next, v) => {
                    cases.push((k, v.clone()));
                    if *next == 0xFFFF {
                        break;
                    }
                    match self.index_of(*next, k + 1, to) {
                        Some(n) => k = n,
                        None => break,
                    }
                }
                _ => break,
            }
        }
        let Some(&(last_case, _)) = cases.last() else {
            self.line(ind, format!("switch ({e}) {{}}"));
            return i + 1;
        };
        // The end: where the `break`s of the cases before the last one
        // land (the nearest such target); without one, the furthest
        // forward jump past the last case.
        // A `break` may land at the end of the enclosing block (a switch
        // that ends an `if` branch).
        let at_or_end = |t: u16, from: usize| {
            self.index_of(t, from, to)
                .or_else(|| (t == self.end_at(to)).then_some(to))
        };
        // A jump to the loop's `continue` target is a `break` too when it
        // lands at the end of the block the switch ends (a switch closing
        // a `while` body: both compile to the same jump, and a case's
        // `break` is what sources write there).
        let block_end = self.end_at(to);
        let past = |j: usize, t: u16| {
            t > self.s[last_case].at
                && at_or_end(t, j).is_some()
                && !lp.is_some_and(|x| x.brk == t || (x.is_cont(t) && t != block_end))
        };
        let jumps = |r: std::ops::Range<usize>| {
            r.filter_map(|j| match self.s[j].stmt {
                Stmt::Jump(t) if past(j, t) => Some(t),
                _ => None,
            })
            .collect::<Vec<u16>>()
        };
        let end_off = jumps(i + 1..last_case)
            .into_iter()
            .min()
            .or_else(|| jumps(last_case..to).into_iter().max());
        // Without a `break` the end is not recorded: the switch ends right
        // after the last case's token when that is the implicit `default`
        // the compiler adds (what follows runs in both readings).
        let end = match end_off.and_then(|t| at_or_end(t, i)) {
            Some(e) => e,
            None if cases.last().is_some_and(|c| c.1.is_none()) => last_case + 1,
            None => to,
        };
        let sw = Some(self.end_at(end));
        self.line(ind, format!("switch ({e})"));
        self.line(ind, "{".into());
        for (n, (ck, v)) in cases.iter().enumerate() {
            let stop = cases.get(n + 1).map_or(end, |c| c.0);
            let head = match v {
                Some(v) => format!("case {v}:"),
                None if stop <= ck + 1 => continue,
                None => "default:".into(),
            };
            self.line(ind + 1, head);
            self.block(ck + 1, stop.max(ck + 1), ind + 2, lp, sw);
        }
        self.line(ind, "}".into());
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(at: u16, stmt: Stmt) -> Located {
        Located { at, stmt }
    }

    fn text(lines: &Lines) -> String {
        lines
            .iter()
            .map(|(i, t)| format!("{}{t}\n", "  ".repeat(*i)))
            .collect()
    }

    #[test]
    fn an_empty_if_branch_before_an_else_is_the_jump_alone() {
        // if (c) {} else { B(); } return;
        let s = [
            at(0, Stmt::JumpIfNot(7, "c".into())),
            at(4, Stmt::Jump(10)),
            at(7, Stmt::Expr("B()".into())),
            at(10, Stmt::Return(None)),
        ];
        let out = text(&structure(&s, &[]));
        assert_eq!(
            out,
            "  if (c)\n  {\n  }\n  else\n  {\n    B();\n  }\n  return;\n"
        );
    }

    #[test]
    fn in_a_loop_a_jump_alone_to_the_body_s_end_stays_continue() {
        // while (w) { if (c) continue; B(); } (the continue jumps to the
        // closing jump back).
        let s = [
            at(0, Stmt::JumpIfNot(20, "w".into())),
            at(5, Stmt::JumpIfNot(12, "c".into())),
            at(9, Stmt::Jump(17)),
            at(12, Stmt::Expr("B()".into())),
            at(17, Stmt::Jump(0)),
            at(20, Stmt::Return(None)),
        ];
        let out = text(&structure(&s, &[]));
        assert!(out.contains("continue;"), "{out}");
        assert!(!out.contains("else"), "{out}");
    }

    #[test]
    fn a_switch_ending_an_if_branch_breaks_to_the_branch_s_end() {
        // if (m) { switch (x) { case 3: A(); break; default: B(); break; } }
        let s = [
            at(0, Stmt::JumpIfNot(30, "m".into())),
            at(5, Stmt::Switch("x".into())),
            at(7, Stmt::Case(15, Some("3".into()))),
            at(10, Stmt::Expr("A()".into())),
            at(12, Stmt::Jump(30)),
            at(15, Stmt::Case(0xFFFF, None)),
            at(18, Stmt::Expr("B()".into())),
            at(22, Stmt::Jump(30)),
            at(30, Stmt::Return(None)),
        ];
        let out = text(&structure(&s, &[]));
        assert!(!out.contains("goto"), "{out}");
        let want = "    switch (x)\n    {\n      case 3:\n        A();\n        break;\n      default:\n        B();\n        break;\n    }\n  }\n  return;\n";
        assert!(out.ends_with(want), "{out}");
    }

    #[test]
    fn a_jump_over_an_empty_else_is_written_as_the_else() {
        // if (c) { A(); } else { } B(); (the compiler's jump over the empty
        // else lands where the condition's does); and the last `break` of a
        // switch ending an `if` branch is not read as one.
        let s = [
            at(0, Stmt::JumpIfNot(10, "c".into())),
            at(4, Stmt::Expr("A()".into())),
            at(7, Stmt::Jump(10)),
            at(10, Stmt::Expr("B()".into())),
            at(14, Stmt::Return(None)),
        ];
        let out = text(&structure(&s, &[]));
        assert_eq!(
            out,
            "  if (c)\n  {\n    A();\n  }\n  else\n  {\n  }\n  B();\n  return;\n"
        );
        let s = [
            at(0, Stmt::JumpIfNot(20, "m".into())),
            at(4, Stmt::Switch("x".into())),
            at(6, Stmt::Case(14, Some("3".into()))),
            at(9, Stmt::Expr("A()".into())),
            at(11, Stmt::Jump(20)),
            at(14, Stmt::Case(0xFFFF, None)),
            at(17, Stmt::Jump(20)),
            at(20, Stmt::Return(None)),
        ];
        let out = text(&structure(&s, &[]));
        assert!(!out.contains("else") && !out.contains("goto"), "{out}");
    }

    #[test]
    fn a_switch_closing_a_while_body_breaks_to_the_loop_s_jump_back() {
        // while (w) { switch (x) { case 1: A(); break; default: return; } }
        // (the case's `break` lands on the loop's closing jump back, where
        // a `continue` would land too).
        let s = [
            at(0, Stmt::JumpIfNot(30, "w".into())),
            at(4, Stmt::Switch("x".into())),
            at(6, Stmt::Case(16, Some("1".into()))),
            at(9, Stmt::Expr("A()".into())),
            at(13, Stmt::Jump(27)),
            at(16, Stmt::Case(0xFFFF, None)),
            at(19, Stmt::Return(None)),
            at(27, Stmt::Jump(0)),
            at(30, Stmt::Return(None)),
        ];
        let out = text(&structure(&s, &[]));
        assert!(!out.contains("continue"), "{out}");
        assert!(!out.contains("goto"), "{out}");
        let want = "      case 1:\n        A();\n        break;\n      default:\n        return;\n    }\n  }\n";
        assert!(out.contains(want), "{out}");
    }

    #[test]
    fn a_jump_back_to_debug_info_before_the_condition_closes_a_while() {
        // Unreal 2 XMP: DebugInfo; while (c) { A(); } (the jump back lands
        // on the DebugInfo).
        let s = [
            at(0, Stmt::Nothing),
            at(10, Stmt::JumpIfNot(20, "c".into())),
            at(14, Stmt::Expr("A()".into())),
            at(17, Stmt::Jump(0)),
            at(20, Stmt::Return(None)),
        ];
        let out = text(&structure(&s, &[]));
        assert_eq!(out, "  while (c)\n  {\n    A();\n  }\n  return;\n");
    }
}
