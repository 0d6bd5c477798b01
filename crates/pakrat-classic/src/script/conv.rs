//! Conversions and other expression rewrites of the decompiler: which
//! byte/int/float conversions the source wrote and which the compiler
//! added (and so are left out), `coerce` parameters, and Vengeance's
//! constructor form of `new`.

use super::natives::Natives;
use super::read::{ByteInfo, Expr};

/// Drop the conversions the compiler added for `coerce` parameters.
pub(super) fn uncoerce(
    args: &mut [Expr],
    coerce: &[bool],
    enums: &[Option<String>],
    n: &dyn Natives,
) {
    for (a, e) in args.iter_mut().zip(enums) {
        if let (Some(ByteInfo::Literal(v)), Some(e)) = (&a.byte, e) {
            if let Some(t) = n.enum_value(e, *v) {
                a.text = t;
            }
        }
    }
    for (a, c) in args.iter_mut().zip(coerce) {
        if *c {
            if let Some(inner) = a.uncast.take() {
                *a = *inner;
            }
        }
    }
}

/// A float as UnrealScript source writes it (`1.0`, `0.5`, `-3.25`).
pub fn float_text(f: f32) -> String {
    let s = format!("{f}");
    if s.contains('.') || s.contains('e') || s.contains("inf") || s.contains("NaN") {
        s
    } else {
        format!("{s}.0")
    }
}

/// Which operands of a binary operator need their left-out conversion
/// written, `(left, right)`. The compiler converts an operand by itself
/// only to match the other one: when both sides were converted to float,
/// the source wrote one of the conversions, and without it the operator
/// would be the int one (`float(a) / b` is not `a / b`). The left one is
/// written, or the right one when the left is a literal. Operators
/// defined for floats only (`%`, `**`, `~=`) convert both sides by
/// themselves.
pub(super) fn explicit_operands(a: &Expr, b: &Expr, op: &str) -> (bool, bool) {
    let to_float = |e: &Expr| e.implicit.and_then(cast_type) == Some("float");
    if matches!(op, "%" | "**" | "~=") || !to_float(a) || !to_float(b) {
        return (false, false);
    }
    let literal = |e: &Expr| e.text.starts_with(|c: char| c.is_ascii_digit() || c == '-');
    if literal(a) && !literal(b) {
        (false, true)
    } else {
        (true, false)
    }
}

/// `e` converted by byte/int/float conversion token `c`, left out of the
/// text. Narrowed, then widened again (`f - int(f)` stores
/// `IntToFloat(FloatToInt(f))`), the narrowing is written: without it the
/// expression would read `f - f`. It is written even where the compiler
/// added both (a few corpus bodies): the meaning is the same, only longer.
pub(super) fn implicit_conversion(mut e: Expr, c: u8) -> Expr {
    if matches!(e.implicit, Some(0x3D | 0x43 | 0x44)) && matches!(c, 0x3A | 0x3C | 0x3F) {
        e = Expr::atom(explicit_text(&e));
    }
    e.implicit = Some(c);
    e
}

/// `new class'X'` from Vengeance's constructor form
/// `class'X'.static.Allocate(self)` . 0x46 `Construct_Void()`; other
/// constructors (with arguments) are written as stored.
pub(super) fn vengeance_new(left: &Expr, right: &Expr) -> Option<Expr> {
    if !right.constructor || !right.text.eq_ignore_ascii_case("Construct_Void()") {
        return None;
    }
    let class = left.text.strip_suffix(".static.Allocate(self)")?;
    let mut e = Expr::atom(format!("new {class}"));
    e.prec = 1;
    Some(e)
}

/// An expression with its left-out conversion written.
pub(super) fn explicit_text(e: &Expr) -> String {
    match e.implicit.and_then(cast_type) {
        Some(ty) => format!("{ty}({})", e.text),
        None => e.text.clone(),
    }
}

/// The type a conversion token converts to (UE2 `ECastToken`, also the
/// UE1 token numbers).
pub(super) fn cast_type(c: u8) -> Option<&'static str> {
    Some(match c {
        0x39 => "vector",
        0x3A | 0x41 | 0x44 | 0x4A => "int",
        0x3B | 0x3E | 0x45 | 0x47 | 0x48 | 0x4B | 0x4F | 0x51 => "bool",
        0x3C | 0x3F | 0x42 | 0x4C => "float",
        0x3D | 0x40 | 0x43 | 0x49 => "byte",
        0x46 => "name",
        0x4D => "vector",
        0x4E | 0x50 => "rotator",
        0x52..=0x5A => "string",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn converted(text: &str, token: u8) -> Expr {
        Expr {
            implicit: Some(token),
            ..Expr::atom(text)
        }
    }

    #[test]
    fn one_of_two_float_conversions_is_written() {
        // IntToFloat(a) / IntToFloat(500): `a / 500` would be int division.
        let (a, b) = (converted("a", 0x3F), converted("500", 0x3F));
        assert_eq!(explicit_operands(&a, &b, "/"), (true, false));
        assert_eq!(explicit_text(&a), "float(a)");
        // The literal stays bare when the other side is a variable.
        assert_eq!(explicit_operands(&b, &a, "*"), (false, true));
        // byte and int sides converted to float: still the int operator
        // without one of them.
        let c = converted("c", 0x3C);
        assert_eq!(explicit_operands(&c, &a, "<"), (true, false));
    }

    #[test]
    fn a_narrowing_widened_again_is_written() {
        // f - int(f): IntToFloat(FloatToInt(f)).
        let e = implicit_conversion(implicit_conversion(Expr::atom("f"), 0x44), 0x3F);
        assert_eq!(e.text, "int(f)");
        assert_eq!(explicit_text(&e), "float(int(f))");
        // Widened twice (byte to int to float): both left out.
        let e = implicit_conversion(implicit_conversion(Expr::atom("b"), 0x3A), 0x3F);
        assert_eq!(e.text, "b");
    }

    #[test]
    fn conversions_the_compiler_adds_stay_out() {
        let (a, b) = (converted("a", 0x3F), converted("b", 0x3F));
        // `%` and `**` take floats only: both sides convert by themselves.
        assert_eq!(explicit_operands(&a, &b, "%"), (false, false));
        assert_eq!(explicit_operands(&a, &b, "**"), (false, false));
        // One converted side matches the other by itself.
        assert_eq!(explicit_operands(&a, &Expr::atom("f"), "*"), (false, false));
        // byte to int on both sides: there are no byte operators.
        let (x, y) = (converted("x", 0x3A), converted("y", 0x3A));
        assert_eq!(explicit_operands(&x, &y, "=="), (false, false));
    }
}
