//! The `replication` block, rebuilt from the class's script.
//!
//! The compiler writes each condition of a class's `replication` block
//! into the class's own bytecode, one expression after another; every
//! property (`CPF_Net` 0x20) and function (`FUNC_Net` 0x40) it names
//! stores the memory offset of its condition as `RepOffset` (after
//! `Category` for a property, after `FunctionFlags` for a function: UT432
//! `UnClass.cpp` `UProperty::Serialize` / `UFunction::Serialize`; UELib
//! reads the condition at that offset the same way). The names sharing an
//! offset form one `if (...)`. A function's `FUNC_NetReliable` (0x80)
//! makes its group `reliable`; a property has no such flag (`reliable`
//! and `unreliable` compile the same for variables), so a group of
//! variables only is written `reliable`. A function that overrides one of
//! a superclass inherits its flags and offset (into the superclass's
//! script): it is not listed.

use std::collections::BTreeMap;

use crate::headers::model::{
    function_overrides, function_rep_offset, function_tail, prop_rep_offset,
};

use super::natives::Natives;
use super::read::Stmt;
use super::Ctx;

/// `FUNC_NetReliable`.
pub const FUNC_NET_RELIABLE: u32 = 0x80;

/// One `if (...)` of the block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepGroup {
    /// The condition's memory offset in the class's script.
    pub offset: u16,
    /// The condition as source text.
    pub condition: String,
    /// `reliable` (else `unreliable`).
    pub reliable: bool,
    /// The properties and functions named, in field order.
    pub names: Vec<String>,
    /// Whether the group names functions.
    pub functions: bool,
}

/// The groups of class export `class` whose fields are `fields`, by
/// offset; empty when nothing is replicated. A condition that does not
/// read is written as a comment naming the offset.
pub fn groups(
    ctx: &Ctx<'_, '_>,
    natives: &dyn Natives,
    class: usize,
    fields: &[usize],
) -> Vec<RepGroup> {
    let pkg = ctx.pkg;
    let mut by_off: BTreeMap<u16, RepGroup> = BTreeMap::new();
    for &k in fields {
        let cls = pkg.export_class_name(k).unwrap_or("");
        let (off, func_flags) = if cls == "Function" {
            if function_overrides(pkg, k) {
                continue;
            }
            let Some(o) = function_rep_offset(pkg, k) else {
                continue;
            };
            (o, function_tail(pkg, k).map(|t| t.1))
        } else if cls.ends_with("Property") {
            match prop_rep_offset(pkg, k) {
                Some(o) => (o, None),
                None => continue,
            }
        } else {
            continue;
        };
        let g = by_off.entry(off).or_insert_with(|| RepGroup {
            offset: off,
            reliable: true,
            ..RepGroup::default()
        });
        g.names
            .push(pkg.name(pkg.exports[k].object_name).to_string());
        if let Some(f) = func_flags {
            if !g.functions {
                g.reliable = f & FUNC_NET_RELIABLE != 0;
            }
            g.functions = true;
        }
    }
    if by_off.is_empty() {
        return Vec::new();
    }
    let conds: BTreeMap<u16, String> = match super::statements(ctx, natives, class) {
        Ok((s, _)) => s
            .into_iter()
            .filter_map(|l| match l.stmt {
                Stmt::Expr(e) => Some((l.at, e)),
                _ => None,
            })
            .collect(),
        Err(_) => BTreeMap::new(),
    };
    by_off
        .into_values()
        .map(|mut g| {
            g.condition = conds
                .get(&g.offset)
                .cloned()
                .unwrap_or_else(|| format!("/* condition at {:#06x} not read */ true", g.offset));
            g
        })
        .collect()
}

/// The `replication` block as source lines (empty when nothing is
/// replicated).
pub fn block(ctx: &Ctx<'_, '_>, natives: &dyn Natives, class: usize, fields: &[usize]) -> String {
    let gs = groups(ctx, natives, class, fields);
    if gs.is_empty() {
        return String::new();
    }
    let mut out = String::from("replication\n{\n");
    for g in gs {
        let r = if g.reliable { "reliable" } else { "unreliable" };
        out.push_str(&format!(
            "    {r} if ({})\n        {};\n",
            g.condition,
            g.names.join(", ")
        ));
    }
    out.push_str("}\n");
    out
}
