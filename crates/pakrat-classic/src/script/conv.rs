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

/// The path an object literal writes for the object at `path`: the
/// shortest form the compiler resolves to the same object. `own` is, for
/// an object of the package itself (its path without the package name),
/// how many objects of its name the package holds.
///
/// The compiler looks an object literal up with `StaticFindObject(Class,
/// ANY_PACKAGE, Path)` (UE2 `FScriptCompiler::GetToken`, `UnObj.cpp`): a
/// bare name is the first object of that name on its hash chain, which
/// `HashObject` fills newest first (the hash is the name's alone), and
/// `Pkg.Name` is an object of that name inside `Pkg` at any depth of
/// groups (`Hash->IsIn(ObjectPackage)`). The package being compiled
/// creates its objects (`#exec` imports) after the packages it depends on
/// are loaded, so its own object is found first by a bare name when it
/// holds only one of that name: it is written bare. An object of another
/// package `Pkg.Group.Name` is written `Pkg.Name` when `Pkg` (given by
/// name, [`NativeTable::add_named`](super::natives::NativeTable::add_named))
/// holds one object of that name; otherwise the whole path is written
/// (`Group.Name` alone would name a package `Group`: an object of the
/// package itself that shares its name is written `Package.Group.Name`
/// when the package's name is known).
pub(super) fn object_path(
    n: &dyn Natives,
    package: &str,
    own: Option<usize>,
    path: &str,
) -> String {
    let parts: Vec<&str> = path.split('.').collect();
    let name = parts.last().copied().unwrap_or("");
    match own {
        Some(1) => name.to_string(),
        Some(_) if package.is_empty() => path.to_string(),
        Some(_) => format!("{package}.{path}"),
        None if parts.len() > 2 && n.objects_in(parts[0], name) == Some(1) => {
            format!("{}.{name}", parts[0])
        }
        None => path.to_string(),
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
/// themselves. A narrowing (to byte or int) is always written: left out,
/// the operator would be the float one (`int(f) == 3` is not `f == 3`).
pub(super) fn explicit_operands(a: &Expr, b: &Expr, op: &str) -> (bool, bool) {
    // `+=` and friends truncate their right side by themselves.
    let assign = op.ends_with('=') && !matches!(op, "==" | "!=" | "<=" | ">=" | "~=");
    let narrow = |e: &Expr| e.implicit.is_some_and(narrowing);
    let to_float = |e: &Expr| e.implicit.and_then(cast_type) == Some("float");
    if matches!(op, "%" | "**" | "~=") || !to_float(a) || !to_float(b) {
        return (narrow(a), narrow(b) && !assign);
    }
    let literal = |e: &Expr| e.text.starts_with(|c: char| c.is_ascii_digit() || c == '-');
    if literal(a) && !literal(b) {
        (false, true)
    } else {
        (true, false)
    }
}

/// The conversions to byte and int from a wider type (`IntToByte`,
/// `FloatToByte`, `FloatToInt`).
fn narrowing(c: u8) -> bool {
    matches!(c, 0x3D | 0x43 | 0x44)
}

/// `e` converted by byte/int/float conversion token `c`, left out of the
/// text. Narrowed, then widened again (`f - int(f)` stores
/// `IntToFloat(FloatToInt(f))`), the narrowing is written: without it the
/// expression would read `f - f`; widened, then narrowed back to its own
/// type, the widening is written (`int(float(i))`). Such pairs are also
/// what the compiler makes of a parenthesised group at the left of an
/// expression that must have a type (see [`left_artefact`]): that form is
/// kept beside.
pub(super) fn implicit_conversion(mut e: Expr, c: u8) -> Expr {
    if let Some(first) = e.implicit {
        let back = matches!((first, c), (0x3F, 0x44) | (0x3C, 0x43) | (0x3A, 0x3D));
        if (narrowing(first) && matches!(c, 0x3A | 0x3C | 0x3F)) || back {
            let group = (e.prec > 0).then(|| format!("({})", e.text));
            e = Expr::atom(explicit_text(&e, false));
            e.artefact = group.zip(cast_type(first)).map(|(g, ty)| Artefact {
                ty,
                converted: true,
                text: g,
            });
        }
    }
    if let Some(a) = e.artefact.as_mut().filter(|_| e.prec > 0) {
        // An operator expression converted: to another type, the whole
        // must be converted back to the group's type; to that type, it is
        // of that type again.
        a.converted = cast_type(c) != Some(a.ty);
    }
    e.implicit = Some(c);
    e
}

/// The source's form of an expression whose leftmost operand is a
/// parenthesised group the compiler converted by itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Artefact {
    /// The type the group was converted to (the type the whole expression
    /// must have).
    pub ty: &'static str,
    /// The whole is of another type and must be converted to `ty`.
    pub converted: bool,
    /// The text as the source wrote it.
    pub text: String,
}

/// The source's form of a binary expression whose left operand `a` is
/// (or starts with) a conversion the compiler added: the compiler compiles
/// a parenthesised group with the type the whole expression must have
/// (UE2 `FScriptCompiler::CompileExpr`: `(` recurses with the
/// `RequiredType`, the right operand gets none), and the operator converts
/// it as its overload needs. So in `Row = (Y - 12) / H;` with an int `Row`
/// the group is converted to int and back to float
/// (`IntToFloat(FloatToInt(Y - 12)) / H`, the whole converted to int), in
/// `L = (W - C) / 2;` the int operator takes the group as converted
/// (`FloatToInt(W - C) / 2`), and in `A.Y = (I >>> 15) & 255;` with a
/// float `A.Y` the group goes to float and back to int. `rest` is the
/// operator and the right side, `op` the operator, `written` which
/// conversions [`explicit_operands`] writes, `wrapped` whether the left
/// side is in parentheses (then it is a group of its own).
pub(super) fn left_artefact(
    a: &Expr,
    op: &str,
    written: (bool, bool),
    wrapped: bool,
    rest: &str,
) -> Option<Artefact> {
    // A written widening of the left side (both sides converted to
    // float) or a written conversion of the right side: the source wrote
    // it, the operator is not the one the group's type would choose.
    let widened = written.0 && !a.implicit.is_some_and(narrowing);
    if written.1 || (wrapped && !written.0) {
        return None;
    }
    if widened {
        // Both sides converted to float, the left one a group: the group
        // was converted for a float context, the right side by the
        // operator (`W = (I * C) + (B * 2);`).
        return (a.prec > 0
            && a.artefact.is_none()
            && a.implicit.and_then(cast_type) == Some("float"))
        .then(|| Artefact {
            ty: "float",
            converted: false,
            text: format!("({}){rest}", a.text),
        });
    }
    let int_op = matches!(
        op,
        "+" | "-" | "*" | "/" | "&" | "|" | "^" | "<<" | ">>" | ">>>"
    );
    if a.implicit == Some(0x44) && a.prec > 0 && a.artefact.is_none() && int_op {
        return Some(Artefact {
            ty: "int",
            converted: false,
            text: format!("({}){rest}", a.text),
        });
    }
    let mut out = a.artefact.clone()?;
    out.text.push_str(rest);
    Some(out)
}

/// An expression where the source writes one that must have a type (the
/// right side of `=`, an argument, a return value): when its type or its
/// conversion is the one its leftmost group was converted to, it is
/// written as the source did (see [`left_artefact`]).
pub(super) fn as_required(mut e: Expr) -> Expr {
    if let Some(a) = e.artefact.take() {
        let top = e.implicit.and_then(cast_type);
        if top == Some(a.ty) || (top.is_none() && !a.converted) {
            e.text = a.text;
        }
    }
    e
}

/// A call's arguments as text (each where the source writes a typed
/// expression, see [`as_required`]).
pub(super) fn arg_list(args: Vec<Expr>) -> String {
    let list: Vec<String> = args.into_iter().map(|a| as_required(a).text).collect();
    list.join(", ")
}

/// `e` with its left-out conversion written, where nothing converts it by
/// itself (inside another conversion: `string(int(f))`).
pub(super) fn written_conversion(e: Expr) -> Expr {
    if e.implicit.is_none() {
        return e;
    }
    Expr::atom(explicit_text(&e, false))
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

/// An expression with its left-out conversion written (else wrapped in
/// parentheses when `wrap`).
pub(super) fn explicit_text(e: &Expr, wrap: bool) -> String {
    match e.implicit.and_then(cast_type) {
        Some(ty) => format!("{ty}({})", e.text),
        None => e.wrap_if(wrap),
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
        assert_eq!(explicit_text(&a, false), "float(a)");
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
        assert_eq!(explicit_text(&e, false), "float(int(f))");
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

    #[test]
    fn a_conversion_inside_another_is_written() {
        // string(int(f)): without `int` the float would become the string.
        assert_eq!(written_conversion(converted("f", 0x44)).text, "int(f)");
        assert_eq!(written_conversion(Expr::atom("f")).text, "f");
    }

    #[test]
    fn a_narrowed_operand_is_written() {
        // int(f) == 3 is not f == 3 (the float operator).
        let f = converted("f", 0x44);
        assert_eq!(explicit_operands(&f, &Expr::atom("3"), "=="), (true, false));
        assert_eq!(explicit_operands(&Expr::atom("i"), &f, "<"), (false, true));
        // `i += f` truncates by itself.
        assert_eq!(
            explicit_operands(&Expr::atom("i"), &f, "+="),
            (false, false)
        );
    }

    /// `(text)` as an operator expression of precedence `prec`.
    fn group(text: &str, prec: u8) -> Expr {
        Expr {
            prec,
            ..Expr::atom(text)
        }
    }

    /// `a op b` with the artefact `binary` gives it.
    fn binary(a: &Expr, op: &str, b: &str, prec: u8) -> Expr {
        let written = explicit_operands(a, &Expr::atom(b), op);
        let left = if written.0 {
            explicit_text(a, false)
        } else {
            a.text.clone()
        };
        Expr {
            artefact: left_artefact(a, op, written, false, &format!(" {op} {b}")),
            ..group(&format!("{left} {op} {b}"), prec)
        }
    }

    #[test]
    fn a_group_the_compiler_converted_is_written_as_the_source_did() {
        // Row = (Y - 12) / H; (int Row, float H):
        // FloatToInt(IntToFloat(FloatToInt(Y - 12)) / H).
        let pair = implicit_conversion(implicit_conversion(group("Y - 12", 20), 0x44), 0x3F);
        assert_eq!(pair.text, "int(Y - 12)");
        let whole = implicit_conversion(binary(&pair, "/", "H", 16), 0x44);
        assert_eq!(whole.text, "int(Y - 12) / H");
        assert_eq!(as_required(whole.clone()).text, "(Y - 12) / H");
        // As an operand (no type required) the pair stays written.
        assert_eq!(whole.text, "int(Y - 12) / H");
        // The same pair where the whole is not converted back to int (a
        // float context): the source wrote the conversion.
        let float_ctx = binary(&pair, "/", "H", 16);
        assert_eq!(as_required(float_ctx).text, "int(Y - 12) / H");

        // L = (W - C) / 2; (int L): FloatToInt(W - C) / 2, an int.
        let narrowed = implicit_conversion(group("W - C", 20), 0x44);
        let whole = binary(&narrowed, "/", "2", 16);
        assert_eq!(whole.text, "int(W - C) / 2");
        assert_eq!(as_required(whole.clone()).text, "(W - C) / 2");
        // Converted to float (a float L), the group would have been a float.
        let f = implicit_conversion(whole, 0x3F);
        assert_eq!(as_required(f).text, "int(W - C) / 2");

        // A.Y = (I >>> 15) & 255; (float A.Y): int to float and back.
        let back = implicit_conversion(implicit_conversion(group("I >>> 15", 22), 0x3F), 0x44);
        let whole = implicit_conversion(binary(&back, "&", "255", 28), 0x3F);
        assert_eq!(whole.text, "int(float(I >>> 15)) & 255");
        assert_eq!(as_required(whole).text, "(I >>> 15) & 255");

        // Row = (Y - 12) / H + T; (int Row, T): the division narrowed for
        // the int `+`, the whole an int again.
        let div = implicit_conversion(binary(&pair, "/", "H", 16), 0x44);
        let whole = binary(&div, "+", "T", 20);
        assert_eq!(whole.text, "int(int(Y - 12) / H) + T");
        assert_eq!(as_required(whole).text, "(Y - 12) / H + T");

        // W = (I * C) + (B * 2); (float W, int I, C, B): both sides
        // converted to float, the left one for the context.
        let left = implicit_conversion(group("I * C", 16), 0x3F);
        let right = implicit_conversion(group("B * 2", 16), 0x3F);
        let written = explicit_operands(&left, &right, "+");
        assert_eq!(written, (true, false));
        let whole = Expr {
            artefact: left_artefact(&left, "+", written, false, " + B * 2"),
            ..group("float(I * C) + B * 2", 20)
        };
        assert_eq!(as_required(whole.clone()).text, "(I * C) + B * 2");
        // Converted to int (an int W): the group would have been an int.
        assert_eq!(
            as_required(implicit_conversion(whole, 0x44)).text,
            "float(I * C) + B * 2"
        );
    }

    /// Packages given by name: `Botpack` holds one `HudElements1` and two
    /// `Dup`.
    struct Given;
    impl Natives for Given {
        fn native(&self, _: u16) -> Option<super::super::natives::NativeInfo> {
            None
        }
        fn function(
            &self,
            _: &crate::Package<'_>,
            _: crate::package::ObjRef,
        ) -> Option<super::super::natives::NativeInfo> {
            None
        }
        fn prop_enum(&self, _: &crate::Package<'_>, _: crate::package::ObjRef) -> Option<String> {
            None
        }
        fn enum_value(&self, _: &str, _: u8) -> Option<String> {
            None
        }
        fn objects_in(&self, package: &str, name: &str) -> Option<usize> {
            match (package, name) {
                ("Botpack", "HudElements1") => Some(1),
                ("Botpack", "Dup") => Some(2),
                ("Botpack", _) => Some(0),
                _ => None,
            }
        }
    }

    #[test]
    fn object_literals_are_written_in_the_shortest_form_that_finds_them() {
        let n = Given;
        // Another package's object, alone of its name there: Pkg.Name
        // finds it at any depth of groups.
        let p = object_path(&n, "UMenu", None, "Botpack.Icons.HudElements1");
        assert_eq!(p, "Botpack.HudElements1");
        // Two of that name in the package, or a package not given: the
        // whole path.
        assert_eq!(
            object_path(&n, "UMenu", None, "Botpack.A.Dup"),
            "Botpack.A.Dup"
        );
        assert_eq!(
            object_path(&n, "UMenu", None, "UWindow.Icons.Bg"),
            "UWindow.Icons.Bg"
        );
        assert_eq!(object_path(&n, "UMenu", None, "UWindow.Bg"), "UWindow.Bg");
        // The package's own object, alone of its name in it: bare (found
        // first); else with the package's name, when known.
        assert_eq!(
            object_path(&n, "UMenu", Some(1), "Icons.ChkChecked"),
            "ChkChecked"
        );
        assert_eq!(
            object_path(&n, "UMenu", Some(2), "Icons.ChkChecked"),
            "UMenu.Icons.ChkChecked"
        );
        assert_eq!(
            object_path(&n, "", Some(2), "Icons.ChkChecked"),
            "Icons.ChkChecked"
        );
    }
}
