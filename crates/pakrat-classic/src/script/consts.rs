//! Named constants written back for int literals.
//!
//! The compiler stores a `const`'s value where the source names it (UE2
//! `UnScrCom.cpp`: the constant's text is parsed again as a literal token
//! wherever it is used), so `X < SizeBorder` and `X < 3` compile to the
//! same bytes and nothing stored tells them apart. A literal is written as
//! a constant's name only where the corpus's sources almost always name
//! it ([`bound_name`]; docs/decompile.md has the measurements).

/// The value of an int `const`'s text (`64`, `0x7fffffff`, `-5`); `None`
/// for the other kinds (floats, strings, names, vectors, bools).
pub fn int_value(text: &str) -> Option<i32> {
    let t = text.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d.trim_start()),
        None => (false, t),
    };
    let v = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        // Hex wraps to 32 bits (`0xFFFFFFFF` is -1).
        Some(h) => i64::from(u32::from_str_radix(h, 16).ok()? as i32),
        None if digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse().ok()?,
        None => return None,
    };
    i32::try_from(if neg { -v } else { v }).ok()
}

/// Whether int literal `v`, on the right of `<` with the value compared on
/// the left, is written as the constant of that value its class declares
/// (`for (i = 0; i < MaxLines; i++)`, `if (X < SizeBorder)`): the bound
/// of a range is what sources name. Values under 3 stay numbers (`i < 2`
/// is as often written bare as named).
pub fn bound_name(op: &str, v: i32) -> bool {
    op == "<" && v.unsigned_abs() >= 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_const_texts_read_as_the_values_the_compiler_stores() {
        assert_eq!(int_value("64"), Some(64));
        assert_eq!(int_value(" -5"), Some(-5));
        assert_eq!(int_value("0x7fffffff"), Some(i32::MAX));
        assert_eq!(int_value("0xFFFFFFFF"), Some(-1));
        assert_eq!(int_value("3.1415926535897932"), None);
        assert_eq!(int_value("\"64\""), None);
        assert_eq!(int_value("'Name'"), None);
        assert_eq!(int_value("9999999999"), None);
    }

    #[test]
    fn only_bounds_of_three_and_over_are_named() {
        assert!(bound_name("<", 3) && bound_name("<", 64));
        assert!(!bound_name("<", 2) && !bound_name("<", -1));
        assert!(!bound_name("<=", 64) && !bound_name("==", 64) && !bound_name("+", 64));
    }
}
