//! Does decrypted data look like what its name says? The SHA-1 a pak keeps
//! for an encrypted file covers the ciphertext, and a stored (uncompressed)
//! file has no decoder to fail: under a wrong AES key it decrypts to noise
//! that nothing else notices. Known formats are checked here instead:
//!
//! - `.uasset`, `.umap`: the package tag `C1 83 2A 9E` (0x9E2A83C1) first;
//! - `.uexp`: the same tag as its last 4 bytes;
//! - `.png`: the PNG signature;
//! - text (`.ini`, `.txt`, `.json`, `.csv`, `.xml`, `.uproject`, `.uplugin`,
//!   `.log`, `.md`): a UTF-16 byte-order mark, or no control characters other
//!   than tab, line and page breaks and escape in the first 512 bytes.
//!
//! Every file of these kinds in the corpus paks (74 `.uasset`, 12 `.umap`,
//! 86 `.uexp`, 48 `.png`, 101 text files) passes. Random bytes fail the tag
//! and signature checks with certainty, and the text check with a
//! probability that grows with the length: 128 bytes or more of text
//! without a control character count as proof of the key (random bytes get
//! there with a chance below 1 in 100,000), shorter text proves nothing.

/// The package tag at the start of every UE3-UE5 package (little-endian).
pub const PACKAGE_TAG: [u8; 4] = [0xC1, 0x83, 0x2A, 0x9E];

/// How much of a file a key probe decodes at most.
pub const PROBE_BYTES: u64 = 1 << 20;

const HEAD: usize = 512;
const TEXT_PROOF: usize = 128;

/// What the decrypted bytes say about the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// They look like their format: the key is right.
    Match,
    /// The name gives no format to check (or too few bytes to tell).
    Unknown,
    /// They do not look like their format: the key is wrong (or the file
    /// is not what its name says). The text says what was expected and
    /// found ("expected text, found ...").
    Mismatch(String),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Package,
    Uexp,
    Png,
    Text,
}

fn kind(path: &str) -> Option<Kind> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "uasset" | "umap" => Kind::Package,
        "uexp" => Kind::Uexp,
        "png" => Kind::Png,
        "ini" | "txt" | "json" | "csv" | "xml" | "uproject" | "uplugin" | "log" | "md" => {
            Kind::Text
        }
        _ => return None,
    })
}

/// True when a file of this name and size can prove or disprove a key
/// ([`Sniffer::verdict`] can say [`Verdict::Match`]).
pub fn checkable(path: &str, size: u64) -> bool {
    match kind(path) {
        Some(Kind::Text) => size >= TEXT_PROOF as u64,
        // A .uexp is told by its end: probed only when small.
        Some(Kind::Uexp) => (4..=PROBE_BYTES).contains(&size),
        Some(Kind::Package) => size >= 4,
        Some(Kind::Png) => size >= 8,
        None => false,
    }
}

/// Collects the first 512 and the last 4 bytes of a stream.
#[derive(Clone, Debug, Default)]
pub struct Sniffer {
    head: Vec<u8>,
    tail: [u8; 4],
    len: u64,
}

impl Sniffer {
    /// A new, empty sniffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Take the next bytes of the stream.
    pub fn feed(&mut self, b: &[u8]) {
        if self.head.len() < HEAD {
            let n = (HEAD - self.head.len()).min(b.len());
            self.head.extend_from_slice(&b[..n]);
        }
        for &x in b.iter().rev().take(4).rev() {
            self.tail.copy_within(1.., 0);
            self.tail[3] = x;
        }
        self.len += b.len() as u64;
    }

    /// Bytes seen so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// No byte seen yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The verdict for a file named `path`; `complete` when the whole file
    /// was fed (the tail of a `.uexp` is only known then).
    pub fn verdict(&self, path: &str, complete: bool) -> Verdict {
        let h = &self.head;
        match kind(path) {
            None => Verdict::Unknown,
            Some(Kind::Package) if h.len() >= 4 => {
                if h[..4] == PACKAGE_TAG {
                    Verdict::Match
                } else {
                    Verdict::Mismatch(format!(
                        "expected the package tag C1 83 2A 9E at the start, found {}",
                        hex4(&h[..4])
                    ))
                }
            }
            Some(Kind::Uexp) if complete && self.len >= 4 => {
                if self.tail == PACKAGE_TAG {
                    Verdict::Match
                } else {
                    Verdict::Mismatch(format!(
                        "expected the package tag C1 83 2A 9E at the end, found {}",
                        hex4(&self.tail)
                    ))
                }
            }
            Some(Kind::Png) if h.len() >= 8 => {
                if h[..8] == *b"\x89PNG\r\n\x1a\n" {
                    Verdict::Match
                } else {
                    Verdict::Mismatch("expected the PNG signature at the start".into())
                }
            }
            Some(Kind::Text) if !h.is_empty() => {
                if h.starts_with(&[0xFF, 0xFE]) || h.starts_with(&[0xFE, 0xFF]) {
                    return if h.len() >= TEXT_PROOF {
                        Verdict::Match
                    } else {
                        Verdict::Unknown
                    };
                }
                let ctl = h
                    .iter()
                    .filter(|&&c| (c < 9 || (14..32).contains(&c) && c != 27) || c == 127)
                    .count();
                if ctl > h.len() / 64 {
                    Verdict::Mismatch(format!(
                        "expected text, found {ctl} control characters in the first {} bytes",
                        h.len()
                    ))
                } else if ctl == 0 && h.len() >= TEXT_PROOF {
                    Verdict::Match
                } else {
                    Verdict::Unknown
                }
            }
            Some(_) => Verdict::Unknown,
        }
    }
}

fn hex4(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff(path: &str, data: &[u8]) -> Verdict {
        let mut s = Sniffer::new();
        for c in data.chunks(3) {
            s.feed(c);
        }
        s.verdict(path, true)
    }

    #[test]
    fn formats_sniff_as_themselves_and_noise_does_not() {
        let mut pkg = PACKAGE_TAG.to_vec();
        pkg.extend_from_slice(b"rest of the summary");
        assert_eq!(sniff("Game/A.uasset", &pkg), Verdict::Match);
        assert_eq!(sniff("Game/A.UMAP", &pkg), Verdict::Match);
        let mut uexp = b"export data".to_vec();
        uexp.extend_from_slice(&PACKAGE_TAG);
        assert_eq!(sniff("Game/A.uexp", &uexp), Verdict::Match);
        let text = "[Core.System]\r\nPaths=../../Content\tx\n".repeat(8);
        assert_eq!(sniff("Config/a.ini", text.as_bytes()), Verdict::Match);
        assert_eq!(sniff("a.txt", b"short"), Verdict::Unknown);
        assert_eq!(sniff("a.bin", &[0u8; 600]), Verdict::Unknown);
        // Noise (a fixed xorshift stream stands in for a wrong key's output).
        let mut x = 0x2545F4914F6CDD1Du64;
        let noise: Vec<u8> = (0..600)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for p in ["a.uasset", "a.umap", "a.uexp", "a.png", "a.ini", "a.json"] {
            assert!(
                matches!(sniff(p, &noise), Verdict::Mismatch(_)),
                "{p}: {:?}",
                sniff(p, &noise)
            );
        }
        assert!(checkable("x/a.uasset", 100));
        assert!(!checkable("x/a.txt", 100));
        assert!(!checkable("x/a.bin", 1 << 20));
    }
}
