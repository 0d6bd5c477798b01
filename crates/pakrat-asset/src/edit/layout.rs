//! Export data laid out again: the bytes between and after the exports are
//! kept, each changed export's bytes replace its old ones, and every old
//! offset maps to its new place.

use super::NewData;

/// Export data after the changes.
pub(super) struct Relaid {
    /// The new bytes of the region (exports and what lies between them).
    pub body: Vec<u8>,
    /// (old position, change): an offset at or after the position moves
    /// by the change (summed over every entry at or before it).
    shifts: Vec<(u64, i64)>,
    /// Each export's new (start, size) in the region.
    pub spans: Vec<(u64, u64)>,
    /// Each changed export's change in size.
    pub resized: Vec<(usize, i64)>,
}

impl Relaid {
    /// Where an old offset in the region now is. An offset inside a
    /// changed property stream stays (only what follows a stream moves).
    pub fn map(&self, old: u64) -> u64 {
        let d: i64 = self
            .shifts
            .iter()
            .take_while(|(at, _)| *at <= old)
            .map(|(_, d)| d)
            .sum();
        old.saturating_add_signed(d)
    }
}

/// Lay `body` (a region holding every export: `spans[i]` = export `i`'s
/// old (start, size) in it) out again with the changed exports' new bytes.
/// Exports that overlap or pass the region's end are refused when anything
/// changed.
pub(super) fn relay(
    body: &[u8],
    spans: &[(u64, u64)],
    new: &[Option<NewData>],
) -> Result<Relaid, String> {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (spans[i].0, spans[i].1));
    let mut out = Vec::with_capacity(body.len());
    let mut shifts = Vec::new();
    let mut resized = Vec::new();
    let mut new_spans = spans.to_vec();
    let mut at = 0u64;
    for &i in &order {
        let (start, len) = spans[i];
        let end = start.checked_add(len).filter(|&e| e <= body.len() as u64);
        let Some(end) = end.filter(|_| start >= at) else {
            return Err(format!(
                "export {i}'s data ({start:#x}+{len:#x}) overlaps another export's or passes the end of the export data ({:#x} bytes); it cannot be moved",
                body.len()
            ));
        };
        out.extend_from_slice(&body[at as usize..start as usize]);
        let new_start = out.len() as u64;
        match new.get(i).and_then(Option::as_ref) {
            Some(n) => {
                out.extend_from_slice(&n.data);
                let d = n.data.len() as i64 - len as i64;
                if d != 0 {
                    shifts.push((start + n.props_end.min(len), d));
                    resized.push((i, d));
                }
                new_spans[i] = (new_start, n.data.len() as u64);
            }
            None => {
                out.extend_from_slice(&body[start as usize..end as usize]);
                new_spans[i] = (new_start, len);
            }
        }
        at = end;
    }
    out.extend_from_slice(&body[at as usize..]);
    shifts.sort_by_key(|s| s.0);
    resized.sort();
    Ok(Relaid {
        body: out,
        shifts,
        spans: new_spans,
        resized,
    })
}

/// The new offset of an inline bulk payload that a bulk data map (legacy
/// data resources, zen bulk data map) places at `off` inside the export
/// that holds it: export-relative (seen on the UE 5.8 fixtures: the
/// Landscape's payloads count from their own export's start). Its owner is
/// the export whose data has the map index `index` (the 4-byte bulk header)
/// right before the payload; when that export was edited and the payload
/// follows its property stream, the payload moved by the change in size.
pub(super) fn inline_offset(
    index: usize,
    off: i64,
    size: i64,
    exports: &[&[u8]],
    new: &[Option<NewData>],
) -> i64 {
    let tag = (index as i32).to_le_bytes();
    let holds = |data: &[u8], at: i64| -> bool {
        at >= 4
            && size >= 0
            && (at + size) as u64 <= data.len() as u64
            && data[(at - 4) as usize..at as usize] == tag
    };
    for (k, data) in exports.iter().enumerate() {
        let Some(n) = new.get(k).and_then(Option::as_ref) else {
            continue;
        };
        if !holds(data, off) || (off as u64) < n.props_end {
            continue;
        }
        let moved = off + (n.data.len() as i64 - data.len() as i64);
        if holds(&n.data, moved) {
            return moved;
        }
    }
    off
}
