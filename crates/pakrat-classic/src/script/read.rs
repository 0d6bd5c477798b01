//! The bytecode reader: a `UStruct`'s script, token by token, into
//! statements whose expressions are already text.
//!
//! Token set (UT432 / UT2004 public `UnStack.h` `EExprToken`; UELib's
//! token map for the version boundaries): 0x00–0x5F expression tokens,
//! 0x60–0x6F extended natives (two bytes: `(t − 0x60) << 8 | next`), 0x70 and
//! up direct natives. Object references are compact indices on disk and 4
//! bytes in memory; names likewise (UE1/UE2 `FName` is an index). Jump
//! offsets count memory bytes, so the reader keeps both positions and stops
//! when the memory position reaches `ScriptSize`.
//!
//! Before v95 (UE1) the conversions 0x39–0x59 are tokens of their own;
//! from v95 (UE2) token 0x39 is `PrimitiveCast` followed by the conversion
//! byte, and 0x3A–0x45 are `ReturnNothing`, the delegate comparisons,
//! `DynArrayInsert`/`Remove`, `DebugInfo`, `DelegateFunction`,
//! `DelegateProperty` and `LetDelegate`.

use pakrat_io::{Error, Reader, Result};

pub use super::conv::float_text;
pub use super::conv::Artefact;
use super::conv::{
    arg_list, as_required, cast_type, explicit_operands, explicit_text, implicit_conversion,
    left_artefact, uncoerce, vengeance_new, written_conversion,
};
use super::natives::{Natives, OpKind};
use super::Ctx;
use crate::package::ObjRef;

pub use super::stmt::{Located, Stmt};

/// The name written for a native function whose index no package given
/// defines: `UnknownNative812(...)`.
pub const UNKNOWN_NATIVE: &str = "UnknownNative";

/// Deepest expression nesting accepted (real scripts stay far below).
const MAX_DEPTH: u32 = 256;

/// An expression as text, with the precedence of its outermost operator
/// (0 = an atom that never needs parentheses; UnrealScript's numbers:
/// lower binds tighter).
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The text.
    pub text: String,
    /// Precedence of the outermost operator (0: atom).
    pub prec: u8,
    /// A function call (`static.` is written before it in a class context).
    pub call: bool,
    /// A default-variable access (`default.` is kept in a class context).
    pub default: bool,
    /// For a conversion, the converted expression (dropped where the
    /// parameter is `coerce`).
    pub uncast: Option<Box<Expr>>,
    /// The enum of a byte variable, or the value of a byte literal.
    pub byte: Option<ByteInfo>,
    /// A byte/int/float conversion left out of `text` because the
    /// compiler adds it by itself (its conversion token).
    pub implicit: Option<u8>,
    /// A Vengeance constructor call (token 0x46, see `context`).
    pub constructor: bool,
    /// The text as the source wrote it, when the compiler narrowed this
    /// expression's leftmost parenthesised operand by itself (the token of
    /// that narrowing; see `conv::left_artefact`).
    pub artefact: Option<Artefact>,
    /// The value of an int literal (`IntConst`, `IntConstByte`, `IntZero`,
    /// `IntOne`): a constant of that value compiles to the same token
    /// (see `bound_name`).
    pub int_lit: Option<i32>,
}

/// What is known of a byte expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ByteInfo {
    /// A variable of this enum type.
    Enum(String),
    /// A literal.
    Literal(u8),
}

impl Expr {
    pub(super) fn atom(text: impl Into<String>) -> Expr {
        Expr {
            text: text.into(),
            prec: 0,
            call: false,
            default: false,
            uncast: None,
            byte: None,
            implicit: None,
            constructor: false,
            artefact: None,
            int_lit: None,
        }
    }
    pub(super) fn wrap_if(&self, p: bool) -> String {
        if p {
            format!("({})", self.text)
        } else {
            self.text.clone()
        }
    }
}

/// Reads a script's tokens.
pub struct TokenReader<'r, 'a, 'p> {
    r: Reader<'a>,
    mem: u32,
    ctx: &'r Ctx<'p, 'a>,
    natives: &'r dyn Natives,
    depth: u32,
    /// The enums of the `switch` expressions whose cases are being read,
    /// innermost last (their cases name values); bounded by the bytecode's
    /// size (a `switch` token is at least two bytes).
    switch_enum: Vec<Option<ByteInfo>>,
    /// The name of the function read (a final call to a function of this
    /// name in another class is a super call).
    pub func: String,
    /// Reading the right side of a context (`a.f()` is never a super call).
    in_context: bool,
    /// The enum of the function's return value (`return 3;` is written
    /// with its value name).
    pub ret_enum: Option<String>,
    /// The function's parameters and locals, lower-case (a constant they
    /// shadow is not written by its name).
    pub locals: Vec<String>,
}

/// What an expression token read ended with (`EX_EndFunctionParms`
/// and friends are not expressions).
enum Item {
    Expr(Expr),
    EndParms,
    Nothing,
}

fn bad(at: u64, what: impl Into<String>) -> Error {
    Error::invalid(at, what.into())
}

/// An int literal of value `v`.
fn int_literal(v: i32) -> Expr {
    Expr {
        int_lit: Some(v),
        ..Expr::atom(v.to_string())
    }
}

fn quote(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

impl<'r, 'a, 'p> TokenReader<'r, 'a, 'p> {
    /// A reader over `bytes` (the script, starting at file offset `base`).
    pub fn new(bytes: &'a [u8], base: u64, ctx: &'r Ctx<'p, 'a>, natives: &'r dyn Natives) -> Self {
        TokenReader {
            r: Reader::with_base(bytes, base),
            mem: 0,
            ctx,
            natives,
            depth: 0,
            switch_enum: Vec::new(),
            func: String::new(),
            in_context: false,
            ret_enum: None,
            locals: Vec::new(),
        }
    }

    /// Bytes read so far from the stored script.
    pub fn disk_pos(&self) -> usize {
        self.r.pos()
    }

    fn licensee(&self) -> u16 {
        self.ctx.pkg.summary.licensee
    }

    fn v(&self) -> u16 {
        self.ctx.pkg.summary.version
    }

    fn u8(&mut self, what: &str) -> Result<u8> {
        self.mem += 1;
        self.r.u8(what)
    }
    fn u16(&mut self, what: &str) -> Result<u16> {
        self.mem += 2;
        self.r.u16(what)
    }
    fn i32(&mut self, what: &str) -> Result<i32> {
        self.mem += 4;
        self.r.i32(what)
    }
    fn f32(&mut self, what: &str) -> Result<f32> {
        self.mem += 4;
        self.r.f32(what)
    }
    fn obj(&mut self, what: &str) -> Result<ObjRef> {
        self.mem += 4;
        let at = self.r.offset();
        let o = ObjRef(self.r.compact(what)?);
        self.ctx
            .pkg
            .check_ref(o)
            .map_err(|e| bad(at, format!("{what}: {e}")))?;
        Ok(o)
    }
    fn name(&mut self, what: &str) -> Result<String> {
        self.mem += 4;
        let at = self.r.offset();
        let i = self.r.compact(what)?;
        if i < 0 || i as usize >= self.ctx.pkg.names.len() {
            return Err(bad(at, format!("{what}: name index {i} outside the table")));
        }
        Ok(self.ctx.pkg.name(i as u32).to_string())
    }
    fn obj_name(&self, o: ObjRef) -> String {
        self.ctx.pkg.object_name(o).unwrap_or("None").to_string()
    }

    /// Read every statement up to `script_size` memory bytes.
    pub fn statements(&mut self, script_size: u32) -> Result<Vec<Located>> {
        let mut out = Vec::new();
        while self.mem < script_size {
            let at = self.mem;
            let off = self.r.offset();
            let stmt = self.statement()?;
            if self.mem > script_size {
                return Err(bad(
                    off,
                    format!("token at memory offset {at:#x} runs past ScriptSize {script_size:#x}"),
                ));
            }
            out.push(Located {
                at: at as u16,
                stmt,
            });
        }
        Ok(out)
    }

    fn statement(&mut self) -> Result<Stmt> {
        let off = self.r.offset();
        let t = self.u8("token")?;
        let ue2 = self.v() >= 95;
        Ok(match t {
            0x04 => {
                if self.v() < 62 {
                    Stmt::Return(None)
                } else {
                    match self.item()? {
                        Item::Expr(e) => {
                            let other = Expr {
                                byte: self.ret_enum.clone().map(ByteInfo::Enum),
                                ..Expr::atom("")
                            };
                            let e = as_required(e);
                            let t = self.enum_literal(&e, &other).unwrap_or(e.text);
                            Stmt::Return(Some(t))
                        }
                        _ => Stmt::Return(None),
                    }
                }
            }
            0x3A if ue2 => Stmt::Return(None),
            0x05 => {
                self.u8("switch property size")?;
                let e = self.expr()?;
                self.switch_enum.push(e.byte.clone());
                Stmt::Switch(explicit_text(&e, false))
            }
            0x06 => Stmt::Jump(self.u16("jump offset")?),
            0x07 => {
                let to = self.u16("jump offset")?;
                Stmt::JumpIfNot(to, self.expr()?.text)
            }
            0x08 => Stmt::Stop,
            0x09 => {
                self.u16("assert line")?;
                Stmt::Assert(self.expr()?.text)
            }
            0x0A => {
                let next = self.u16("case offset")?;
                if next == 0xFFFF {
                    // Every switch ends its cases with one `default` token
                    // (the compiler writes one when the source does not):
                    // the cases after it are an enclosing switch's.
                    self.switch_enum.pop();
                    Stmt::Case(next, None)
                } else {
                    let v = self.expr()?;
                    let other = Expr {
                        byte: self.switch_enum.last().cloned().flatten(),
                        ..Expr::atom("")
                    };
                    let t = self.enum_literal(&v, &other).unwrap_or(v.text);
                    Stmt::Case(next, Some(t))
                }
            }
            0x0B => Stmt::Nothing,
            // A native function's parameters, one `NativeParm` each (the
            // Vengeance compiler writes them): nothing the source wrote.
            0x29 => {
                self.variable("")?;
                Stmt::Nothing
            }
            0x0C => {
                let mut labels = Vec::new();
                loop {
                    let n = self.name("label name")?;
                    let at = self.i32("label offset")? as u32;
                    if n.eq_ignore_ascii_case("None") {
                        break;
                    }
                    labels.push((n, at));
                }
                Stmt::Labels(labels)
            }
            0x0D => Stmt::Goto(self.expr()?.text),
            0x2F => {
                let e = self.expr()?;
                let end = self.u16("iterator end")?;
                Stmt::Iterator(e.text, end)
            }
            0x30 => Stmt::IteratorPop,
            0x31 => Stmt::IteratorNext,
            0x42 if ue2 => {
                self.debug_info()?;
                Stmt::Nothing
            }
            // A line number (Unreal 2 and XMP) before a statement of any
            // kind (a jump, too): a statement of its own, so that jumps to
            // it land on a statement.
            0x15 if self.v() >= 62 => {
                self.u16("line number")?;
                Stmt::Nothing
            }
            0x47 if ue2 => Stmt::Nothing,
            _ => {
                self.depth = 0;
                match self.token(t, off)? {
                    Item::Expr(e) => Stmt::Expr(e.text),
                    Item::EndParms => return Err(bad(off, "stray EndFunctionParms")),
                    Item::Nothing => Stmt::Nothing,
                }
            }
        })
    }

    /// `EX_DebugInfo`: version, line and text position (i32 each), then
    /// the opcode: a byte in UT2004 (`EDebugInfo`, small values), a
    /// NUL-terminated name (`NEWSTACK`, `SIMPLEIF`) in Unreal 2 XMP, seen
    /// in the corpus's XMP packages; an upper-case letter where the byte
    /// would be starts the name.
    fn debug_info(&mut self) -> Result<()> {
        self.i32("DebugInfo version")?;
        self.i32("DebugInfo line")?;
        self.i32("DebugInfo position")?;
        let named = self
            .r
            .rest()
            .first()
            .is_some_and(|b| b.is_ascii_uppercase());
        if named {
            self.zstring8()?;
        } else {
            self.u8("DebugInfo opcode")?;
        }
        Ok(())
    }

    fn item(&mut self) -> Result<Item> {
        let off = self.r.offset();
        let t = self.u8("token")?;
        self.token(t, off)
    }

    /// An expression (anything else is an error naming the offset).
    pub fn expr(&mut self) -> Result<Expr> {
        let off = self.r.offset();
        match self.item()? {
            Item::Expr(e) => Ok(e),
            Item::Nothing => Ok(Expr::atom("")),
            Item::EndParms => Err(bad(off, "expression expected, EndFunctionParms found")),
        }
    }

    fn token(&mut self, t: u8, off: u64) -> Result<Item> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(bad(off, "expression nested too deeply"));
        }
        let r = self.token_inner(t, off);
        self.depth -= 1;
        r
    }

    fn token_inner(&mut self, t: u8, off: u64) -> Result<Item> {
        let ue2 = self.v() >= 95;
        if t >= 0x60 {
            let index = if t >= 0x70 {
                u16::from(t)
            } else {
                let b = self.u8("extended native")?;
                (u16::from(t - 0x60) << 8) | u16::from(b)
            };
            return self.native_call(index, off).map(Item::Expr);
        }
        if (0x39..=0x59).contains(&t) && !ue2 {
            return self.cast(t, off).map(Item::Expr);
        }
        Ok(Item::Expr(match t {
            0x00 | 0x01 | 0x29 => self.variable("")?,
            0x02 => {
                let mut e = self.variable("default.")?;
                e.default = true;
                e
            }
            0x0B => return Ok(Item::Nothing),
            0x0E => return self.item(),
            0x0F | 0x14 => self.let_expr()?,
            0x45 if ue2 => self.let_expr()?,
            0x10 | 0x1A => {
                let index = self.expr()?;
                let array = self.expr()?;
                let mut e =
                    Expr::atom(format!("{}[{}]", array.wrap_if(array.prec > 0), index.text));
                e.byte = array.byte;
                e
            }
            0x11 => self.new_expr()?,
            0x12 | 0x19 => self.context(t == 0x12)?,
            0x13 => {
                let c = self.obj("metacast class")?;
                let e = self.expr()?;
                // `Class(x)` compiles to a metacast to `class<Object>`.
                let meta = self.obj_name(c);
                if meta.eq_ignore_ascii_case("Object") {
                    Expr::atom(format!("class({})", e.text))
                } else {
                    Expr::atom(format!("class<{meta}>({})", e.text))
                }
            }
            0x15 => {
                self.u16("line number")?;
                return self.item();
            }
            0x16 => return Ok(Item::EndParms),
            0x17 => Expr::atom("self"),
            0x18 => {
                self.u16("skip size")?;
                return self.item();
            }
            0x1B => {
                let n = self.name("function name")?;
                self.call(n)?
            }
            0x1C => self.final_call()?,
            0x38 => {
                let n = self.name("function name")?;
                let mut e = self.call(n)?;
                e.text = format!("global.{}", e.text);
                e
            }
            0x43 if ue2 => {
                self.obj("delegate property")?;
                let n = self.name("delegate name")?;
                self.call(n)?
            }
            0x44 if ue2 => Expr::atom(self.name("delegate name")?),
            // Debug information inside an expression (Unreal 2 XMP).
            0x42 if ue2 => {
                self.debug_info()?;
                return self.item();
            }
            _ => return self.constant(t, off),
        }))
    }

    fn constant(&mut self, t: u8, off: u64) -> Result<Item> {
        let ue2 = self.v() >= 95;
        Ok(Item::Expr(match t {
            0x1D => int_literal(self.i32("int")?),
            0x1E => Expr::atom(float_text(self.f32("float")?)),
            0x1F => {
                let s = self.zstring8()?;
                Expr::atom(quote(&s))
            }
            0x20 => {
                let o = self.obj("object")?;
                Expr::atom(self.object_literal(o))
            }
            0x21 => {
                let n = self.name("name")?;
                let n = if n.eq_ignore_ascii_case("None") {
                    String::new()
                } else {
                    n
                };
                Expr::atom(format!("'{n}'"))
            }
            0x22 => {
                let (p, y, r) = (self.i32("pitch")?, self.i32("yaw")?, self.i32("roll")?);
                Expr::atom(format!("rot({p},{y},{r})"))
            }
            0x23 => {
                let (x, y, z) = (self.f32("x")?, self.f32("y")?, self.f32("z")?);
                Expr::atom(format!(
                    "vect({},{},{})",
                    float_text(x),
                    float_text(y),
                    float_text(z)
                ))
            }
            0x24 | 0x2C => {
                let b = self.u8("byte")?;
                let mut e = Expr::atom(b.to_string());
                if t == 0x24 {
                    e.byte = Some(ByteInfo::Literal(b));
                } else {
                    e.int_lit = Some(i32::from(b));
                }
                e
            }
            0x25 => int_literal(0),
            0x26 => int_literal(1),
            0x27 => Expr::atom("true"),
            0x28 => Expr::atom("false"),
            0x2A => Expr::atom("none"),
            0x2B if self.v() < 70 => {
                self.u8("string length")?;
                return self.item();
            }
            0x2D => return self.item(),
            0x2E => {
                let c = self.obj("cast class")?;
                let e = self.expr()?;
                Expr::atom(format!("{}({})", self.obj_name(c), e.text))
            }
            0x32 | 0x33 => {
                self.obj("struct")?;
                let (a, b) = (self.expr()?, self.expr()?);
                self.binary(&a, if t == 0x32 { "==" } else { "!=" }, 24, &b)
            }
            0x34 => Expr::atom(quote(&self.zstring16()?)),
            0x35 if ue2 => {
                let (a, b) = (self.f32("range")?, self.f32("range")?);
                Expr::atom(format!("rng({},{})", float_text(a), float_text(b)))
            }
            0x36 => {
                let m = self.obj("struct member")?;
                let e = self.expr()?;
                let mut out = Expr::atom(format!("{}.{}", e.wrap_if(e.prec > 0), self.obj_name(m)));
                out.byte = self.natives.prop_enum(self.ctx.pkg, m).map(ByteInfo::Enum);
                out
            }
            0x37 if self.v() >= 62 => {
                let e = self.expr()?;
                Expr::atom(format!("{}.Length", e.wrap_if(e.prec > 0)))
            }
            0x39 if ue2 => {
                let c = self.u8("conversion")?;
                return self.cast(c, off).map(Item::Expr);
            }
            0x3B..=0x3E if ue2 => {
                let (a, b) = (self.expr()?, self.expr()?);
                self.end_parms(off)?;
                let op = if t % 2 == 1 { "==" } else { "!=" };
                self.binary(&a, op, 24, &b)
            }
            0x3F if ue2 => Expr::atom("none"),
            0x40 | 0x41 if ue2 => {
                let a = self.expr()?;
                let (i, n) = (self.expr()?, self.expr()?);
                let m = if t == 0x40 { "Insert" } else { "Remove" };
                let mut e = Expr::atom(format!("{}.{m}({},{})", a.text, i.text, n.text));
                e.call = true;
                e
            }
            // Vengeance (SWAT 4, Tribes: Vengeance) compiles `new class'X'`
            // of an Object class with a constructor as
            // `class'X'.static.Allocate(self)` in a context whose right side
            // is 0x46 and the constructor call (`Construct_Void()`): the
            // token marks that call, with no operand of its own (the
            // context's skip counts it as one byte). Unused in Epic's UE2.
            0x46 if ue2 && crate::summary::vengeance_header(self.v(), self.licensee()) => {
                let mut e = self.expr()?;
                e.constructor = true;
                e
            }
            0x46 if ue2 => return Err(bad(off, format!("token {t:#04x} is not used in UE2"))),
            _ => return Err(bad(off, format!("unknown token {t:#04x}"))),
        }))
    }

    fn zstring8(&mut self) -> Result<String> {
        let mut s = String::new();
        loop {
            let c = self.u8("string")?;
            if c == 0 {
                return Ok(s);
            }
            s.push(char::from(c));
        }
    }

    fn zstring16(&mut self) -> Result<String> {
        let mut u = Vec::new();
        loop {
            let c = self.u16("unicode string")?;
            if c == 0 {
                return Ok(String::from_utf16_lossy(&u));
            }
            u.push(c);
        }
    }

    fn end_parms(&mut self, off: u64) -> Result<()> {
        match self.item()? {
            Item::EndParms => Ok(()),
            _ => Err(bad(off, "EndFunctionParms expected")),
        }
    }

    fn variable(&mut self, prefix: &str) -> Result<Expr> {
        let o = self.obj("variable")?;
        let name = self.obj_name(o);
        // A delegate's property is `__Name__Delegate`; the source names it
        // `Name`.
        let name = match name
            .strip_prefix("__")
            .and_then(|n| n.strip_suffix("__Delegate"))
        {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => name,
        };
        let mut e = Expr::atom(format!("{prefix}{name}"));
        e.byte = self.natives.prop_enum(self.ctx.pkg, o).map(ByteInfo::Enum);
        Ok(e)
    }

    /// A byte literal written as the value name of the enum `other` has.
    fn enum_literal(&self, lit: &Expr, other: &Expr) -> Option<String> {
        match (&lit.byte, &other.byte) {
            (Some(ByteInfo::Literal(v)), Some(ByteInfo::Enum(e))) => self.natives.enum_value(e, *v),
            _ => None,
        }
    }

    fn object_literal(&self, o: ObjRef) -> String {
        let pkg = self.ctx.pkg;
        if o.is_none() {
            return "none".into();
        }
        let class = pkg.class_name(o).unwrap_or("Object").to_string();
        // Classes are written by name, as the source does.
        if class.eq_ignore_ascii_case("Class") {
            return format!("class'{}'", self.obj_name(o));
        }
        let path = pkg.object_path(o).unwrap_or_default();
        // An object of the package itself: how many objects of its name the
        // package holds.
        let own = matches!(pkg.check_ref(o), Ok(crate::package::Target::Export(_))).then(|| {
            let name = self.obj_name(o);
            (0..pkg.exports.len())
                .filter(|&i| {
                    pkg.name(pkg.exports[i].object_name)
                        .eq_ignore_ascii_case(&name)
                })
                .filter(|&i| super::natives::is_resource(pkg, i))
                .count()
        });
        let path = super::conv::object_path(self.natives, &self.ctx.package, own, &path);
        format!("{class}'{path}'")
    }

    fn cast(&mut self, c: u8, off: u64) -> Result<Expr> {
        let Some(ty) = cast_type(c) else {
            return Err(bad(off, format!("unknown conversion {c:#04x}")));
        };
        let e = self.expr()?;
        // byte, int and float convert into each other implicitly: the
        // source rarely writes these conversions.
        // The conversion is remembered: an operator may need it written
        // back (see `explicit_operands`).
        if matches!(c, 0x3A | 0x3C | 0x3D | 0x3F | 0x43 | 0x44) {
            return Ok(implicit_conversion(e, c));
        }
        // A byte/int/float conversion inside another is the source's: the
        // compiler converts straight to the outer type (`string(int(f))`).
        let e = written_conversion(e);
        let mut out = Expr::atom(format!("{ty}({})", e.text));
        out.uncast = Some(Box::new(e));
        Ok(out)
    }

    fn let_expr(&mut self) -> Result<Expr> {
        let a = self.expr()?;
        let b = self.expr()?;
        let b = as_required(b);
        let rhs = self.enum_literal(&b, &a).unwrap_or(b.text);
        Ok(Expr {
            prec: 255,
            ..Expr::atom(format!("{} = {rhs}", a.text))
        })
    }

    fn new_expr(&mut self) -> Result<Expr> {
        let outer = self.expr()?;
        let name = self.expr()?;
        let flags = self.expr()?;
        let class = self.expr()?;
        let args: Vec<&str> = [&outer, &name, &flags]
            .iter()
            .map(|e| e.text.as_str())
            .collect();
        let n = args
            .iter()
            .rposition(|a| !a.is_empty())
            .map_or(0, |p| p + 1);
        let head = if n == 0 {
            "new".to_string()
        } else {
            format!("new ({})", args[..n].join(", "))
        };
        let mut e = Expr::atom(format!("{head} {}", class.wrap_if(class.prec > 0)));
        e.prec = 1;
        Ok(e)
    }

    fn context(&mut self, class_context: bool) -> Result<Expr> {
        let left = self.expr()?;
        self.u16("context skip")?;
        self.u8("context size")?;
        let was = std::mem::replace(&mut self.in_context, true);
        let right = self.expr();
        self.in_context = was;
        let right = right?;
        let l = left.wrap_if(left.prec > 0);
        // `Obj.EEnum.Value` and `Obj.Const` compile to the constant itself
        // behind a context: the constant alone says the same.
        let t = right.text.as_str();
        let constant = t.parse::<f64>().is_ok()
            || t.starts_with(['"', '\''])
            || t.starts_with("vect(")
            || t.starts_with("rot(")
            || matches!(t, "true" | "false" | "none");
        if constant || self.implicit_outer(&left, &right) {
            return Ok(right);
        }
        if let Some(e) = vengeance_new(&left, &right) {
            return Ok(e);
        }
        let text = if class_context && right.call {
            format!("{l}.static.{}", right.text)
        } else {
            format!("{l}.{}", right.text)
        };
        let mut e = Expr::atom(text);
        e.call = right.call;
        e.byte = right.byte;
        Ok(e)
    }

    /// Whether `Outer.f()` is the compiler's: in a `within` class, a call
    /// to a function that the class's own hierarchy does not define is
    /// made on `Outer` (the source writes `f()`; where the class has a
    /// function of that name too, the source must write `Outer.`).
    fn implicit_outer(&self, left: &Expr, right: &Expr) -> bool {
        if !left.text.eq_ignore_ascii_case("Outer") {
            return false;
        }
        let pkg = self.ctx.pkg;
        let within =
            crate::class::read_class_tail(pkg, self.ctx.class).is_ok_and(|t| !t.within.is_none());
        // A call `f(...)` or a variable `v`.
        let f = if right.call {
            right.text.split('(').next().unwrap_or("")
        } else if right
            .text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            right.text.as_str()
        } else {
            return false;
        };
        let class = pkg.name(pkg.exports[self.ctx.class].object_name);
        // The whole hierarchy must be known (up to Object).
        let mut c = class.to_lowercase();
        for _ in 0..64 {
            match self.natives.super_of(&c) {
                Some(s) => c = s,
                None => break,
            }
        }
        within
            && c == "object"
            && self.natives.lookup(class, f).is_none()
            && !self.natives.has_property(class, f)
    }

    fn args(&mut self) -> Result<Vec<Expr>> {
        let was = std::mem::replace(&mut self.in_context, false);
        let r = self.args_inner();
        self.in_context = was;
        r
    }

    fn args_inner(&mut self) -> Result<Vec<Expr>> {
        let mut args = Vec::new();
        loop {
            let off = self.r.offset();
            match self.item()? {
                Item::EndParms => break,
                Item::Expr(e) => args.push(e),
                Item::Nothing => args.push(Expr::atom("")),
            }
            if args.len() > 255 {
                return Err(bad(off, "more than 255 arguments"));
            }
        }
        // The compiler stores an empty parameter only where the source wrote
        // one before a comma: `Spawn(C, P,,,)` is `C, P, Nothing, Nothing`,
        // where `Spawn(C, P)` stores no `Nothing` at all. Trailing ones are
        // written back with the empty parameter before the `)`.
        if args.last().is_some_and(|a| a.text.is_empty()) {
            args.push(Expr::atom(""));
        }
        Ok(args)
    }

    fn call(&mut self, name: String) -> Result<Expr> {
        // A virtual call: the function is found from the class upwards, or
        // (through a context, whose class is not known here) by its name
        // when every function of that name agrees.
        let info = if self.in_context {
            None
        } else {
            let class = self
                .ctx
                .pkg
                .name(self.ctx.pkg.exports[self.ctx.class].object_name);
            self.natives.lookup(class, &name).map(|(_, i)| i)
        }
        .or_else(|| self.natives.by_name(&name));
        let mut args = self.args()?;
        if let Some(i) = &info {
            uncoerce(&mut args, &i.coerce, &i.enums, self.natives);
        }
        let list = arg_list(args);
        let mut e = Expr::atom(format!("{name}({})", list));
        e.call = true;
        e.byte = info.and_then(|i| i.ret).map(ByteInfo::Enum);
        Ok(e)
    }

    fn final_call(&mut self) -> Result<Expr> {
        let f = self.obj("function")?;
        let in_context = self.in_context;
        let info = self.natives.function(self.ctx.pkg, f);
        let mut args = self.args()?;
        if let Some(i) = &info {
            uncoerce(&mut args, &i.coerce, &i.enums, self.natives);
        }
        let name = self.obj_name(f);
        if let Some(info) = &info {
            if let Some(e) = self.operator(&info.friendly, info.kind, &args) {
                return Ok(e);
            }
        }
        let list = arg_list(args);
        let is_super = !in_context
            && match &info {
                Some(i) => i.is_super_call(),
                None => super::natives::unknown_is_super(self.ctx, f),
            };
        let prefix = if is_super {
            super::natives::super_prefix(self.ctx, self.natives, f)
        } else {
            String::new()
        };
        let mut e = Expr::atom(format!("{prefix}{name}({})", list));
        e.call = true;
        e.byte = info.and_then(|i| i.ret).map(ByteInfo::Enum);
        Ok(e)
    }

    fn native_call(&mut self, index: u16, off: u64) -> Result<Expr> {
        let Some(info) = self.natives.native(index) else {
            // A native of a package not given: its calls still end with
            // EndFunctionParms, so the call is written with its index.
            let _ = off;
            let args = self.args()?;
            if let Some(e) = super::v469::dyn_array_call(self.ctx.pkg.summary.version, index, &args)
            {
                return Ok(e);
            }
            let list: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
            let mut e = Expr::atom(format!("{UNKNOWN_NATIVE}{index}({})", list.join(", ")));
            e.call = true;
            return Ok(e);
        };
        let mut args = self.args()?;
        uncoerce(&mut args, &info.coerce, &info.enums, self.natives);
        if let Some(e) = self.operator(&info.friendly, info.kind, &args) {
            return Ok(e);
        }
        let list = arg_list(args);
        let mut e = Expr::atom(format!("{}({})", info.friendly, list));
        e.call = true;
        e.byte = info.ret.map(ByteInfo::Enum);
        Ok(e)
    }

    fn operator(&self, sym: &str, kind: OpKind, args: &[Expr]) -> Option<Expr> {
        match (kind, args) {
            (OpKind::Binary(p), [a, b]) => Some(self.binary(a, sym, p, b)),
            (OpKind::Pre, [a]) => Some(Expr {
                prec: 1,
                ..Expr::atom(format!("{sym}{}", explicit_text(a, a.prec > 0)))
            }),
            (OpKind::Post, [a]) => Some(Expr {
                prec: 1,
                ..Expr::atom(format!("{}{sym}", explicit_text(a, a.prec > 0)))
            }),
            _ => None,
        }
    }

    fn binary(&self, a: &Expr, op: &str, p: u8, b: &Expr) -> Expr {
        // Left-associative: the left side keeps its own level, the right
        // side is wrapped at the same level. Assignment-like operators
        // (`+=`, `$=`...) are wrapped like any other.
        let sep = format!(" {op} ");
        let (ea, eb) = explicit_operands(a, b, op);
        let b = &self.bound_name(op, b);
        let at = if ea {
            explicit_text(a, false)
        } else {
            self.enum_literal(a, b)
                .unwrap_or_else(|| a.wrap_if(a.prec > p))
        };
        let bt = if eb {
            explicit_text(b, false)
        } else {
            self.enum_literal(b, a)
                .unwrap_or_else(|| b.wrap_if(b.prec >= p))
        };
        Expr {
            prec: p.max(1),
            artefact: left_artefact(a, op, (ea, eb), a.prec > p, &format!("{sep}{bt}")),
            ..Expr::atom(format!("{at}{sep}{bt}"))
        }
    }

    /// Int literal `lit` on the right of `op` written as the constant its
    /// class declares with that value, where [`super::consts::bound_name`]
    /// says so (the compiler stores the value either way).
    fn bound_name(&self, op: &str, lit: &Expr) -> Expr {
        let pkg = self.ctx.pkg;
        let class = pkg.name(pkg.exports[self.ctx.class].object_name);
        let name = lit
            .int_lit
            .filter(|&v| lit.text == v.to_string() && super::consts::bound_name(op, v))
            .and_then(|v| self.natives.class_const(class, v))
            // A property or local of that name would be found first.
            .filter(|n| {
                !self.natives.has_property(class, n) && !self.locals.contains(&n.to_lowercase())
            });
        match name {
            Some(n) => Expr {
                text: n,
                ..lit.clone()
            },
            None => lit.clone(),
        }
    }
}
