//! The statements [`super::read::TokenReader`] reads: one per top-level
//! bytecode token, with the memory offset jumps point at.

/// One statement of the bytecode (a top-level token).
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// An expression statement (assignment, call).
    Expr(String),
    /// `return x;` (`None`: `return;`).
    Return(Option<String>),
    /// Unconditional jump to a memory offset.
    Jump(u16),
    /// `if (!cond) jump`.
    JumpIfNot(u16, String),
    /// `switch (x)`.
    Switch(String),
    /// A `case x:` (next case at the offset) or `default:` (`None`).
    Case(u16, Option<String>),
    /// `foreach x` ending at the offset.
    Iterator(String, u16),
    /// End of a `foreach` body.
    IteratorNext,
    /// Leaves a `foreach` (before `return` or at its end).
    IteratorPop,
    /// `stop;`.
    Stop,
    /// `goto x;`.
    Goto(String),
    /// `assert(x);`.
    Assert(String),
    /// The label table of state code: (label, offset).
    Labels(Vec<(String, u32)>),
    /// A token that does nothing (`EX_Nothing`, debug info, end of script).
    Nothing,
}

/// A statement and the memory offset of its first token.
#[derive(Clone, Debug, PartialEq)]
pub struct Located {
    /// Memory offset (what jumps point at).
    pub at: u16,
    /// The statement.
    pub stmt: Stmt,
}
