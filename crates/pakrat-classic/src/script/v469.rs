//! UT v469's dynamic-array calls in a v69 package (see [`dyn_array_call`]).

use super::read::Expr;

/// UT v469's dynamic arrays in a v69 package: `A.Length`, `A.Insert(i, n)`
/// and `A.Remove(i, n)` compile to calls of natives 640, 641 and 642 with
/// the array first, which no package declares (UT v469's Core and Engine
/// of the corpus define none of them). Read from the corpus: the kept
/// source of `ue1/VoteSys_v12.u` writes these forms where its bytecode
/// calls those indices (`IWantToKick.Remove(Index, 1)`, `Maps.Length`),
/// and Unreal 227 and XC_Engine declare 640 and 641 as the length and the
/// insertion of the dynamic array given first (`Array_Length(out Ar,
/// optional SetSize)`, `Array_Insert(out Ar, Offset, optional Count)`).
pub(super) fn dyn_array_call(version: u16, index: u16, args: &[Expr]) -> Option<Expr> {
    if version != 69 {
        return None;
    }
    let (array, rest) = args.split_first()?;
    let on = array.wrap_if(array.prec > 0);
    let text = match (index, rest.len()) {
        (640, 0) => format!("{on}.Length"),
        (641 | 642, 1 | 2) => {
            let f = if index == 641 { "Insert" } else { "Remove" };
            let list: Vec<&str> = rest.iter().map(|a| a.text.as_str()).collect();
            format!("{on}.{f}({})", list.join(", "))
        }
        _ => return None,
    };
    Some(Expr::atom(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v469_dynamic_array_natives_are_written_as_the_array_s_members() {
        let args = |v: &[&str]| {
            v.iter()
                .map(|t| Expr::atom(t.to_string()))
                .collect::<Vec<_>>()
        };
        let text = |v, i, a: &[&str]| dyn_array_call(v, i, &args(a)).map(|e| e.text);
        assert_eq!(text(69, 640, &["Maps"]).as_deref(), Some("Maps.Length"));
        assert_eq!(
            text(69, 641, &["A.B", "i", "1"]).as_deref(),
            Some("A.B.Insert(i, 1)")
        );
        assert_eq!(text(69, 642, &["L", "0"]).as_deref(), Some("L.Remove(0)"));
        // Another generation, another index or another count: left to the
        // caller (written UnknownNative).
        assert_eq!(text(68, 640, &["Maps"]), None);
        assert_eq!(text(69, 643, &["Maps"]), None);
        assert_eq!(text(69, 640, &["Maps", "3"]), None);
        assert_eq!(text(69, 641, &[]), None);
        // An operand that is an expression is wrapped.
        let e = Expr {
            prec: 16,
            ..Expr::atom("a + b")
        };
        assert_eq!(
            dyn_array_call(69, 640, &[e]).map(|e| e.text).as_deref(),
            Some("(a + b).Length")
        );
    }
}
