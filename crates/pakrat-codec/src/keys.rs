//! AES-256 keys and block decryption (ECB, and v10 CTR).
//!
//! UE uses raw 32-byte keys without padding (`FAES`); CTR containers (TOC v10)
//! have one 12-byte IV per block, counter block = `IV ‖ u32 BE counter`
//! starting at 0 (CUE4Parse `Aes.cs`).

use std::collections::HashMap;

use aes::cipher::{Array, BlockCipherDecrypt, KeyInit, KeyIvInit, StreamCipher};
use pakrat_io::{Error, Guid, Result};
use serde::Serialize;

/// How the data of encrypted entries and the index are encrypted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Cipher {
    /// AES-256-ECB (every version before 15, and v15 method 1).
    Ecb,
    /// AES-256-CTR, counter block `IV ‖ u32 BE` (v15 method 2).
    Ctr,
}

/// Pad `data` to a multiple of 16 the way UnrealPak does (UE 4.21+): the
/// padding repeats the data from its start.
pub fn pad_cyclic(data: &mut Vec<u8>) {
    let n = data.len();
    let want = n.div_ceil(16) * 16;
    for i in n..want {
        let b = if n == 0 { 0 } else { data[(i - n) % n] };
        data.push(b);
    }
}

/// A 32-byte AES-256 key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AesKey(pub [u8; 32]);

impl std::fmt::Debug for AesKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print key material in logs.
        f.write_str("AesKey(..)")
    }
}

impl AesKey {
    /// Parse hex (exactly 64 digits, optionally prefixed `0x`) or base64
    /// (44 characters). The forms cannot be confused: hex is 64 or 66
    /// characters, base64 of 32 bytes is 44, so a base64 key that happens to
    /// start with `0x` (1 in 4,096) is read as base64.
    pub fn parse(text: &str) -> Result<AesKey> {
        let t = text.trim();
        let hexpart = t
            .strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .unwrap_or(t);
        if hexpart.len() == 64 && hexpart.bytes().all(|b| b.is_ascii_hexdigit()) {
            let mut k = [0u8; 32];
            for (i, x) in k.iter_mut().enumerate() {
                *x = u8::from_str_radix(&hexpart[i * 2..i * 2 + 2], 16)
                    .map_err(|_| Error::Other("bad hex digit in AES key".into()))?;
            }
            return Ok(AesKey(k));
        }
        let b64 = decode_base64(t);
        if let Some(b) = b64.as_deref().filter(|b| b.len() == 32) {
            let mut k = [0u8; 32];
            k.copy_from_slice(b);
            return Ok(AesKey(k));
        }
        let looks_hex = !hexpart.is_empty() && hexpart.bytes().all(|b| b.is_ascii_hexdigit());
        if looks_hex {
            return Err(Error::Other(format!(
                "AES key in hex must have 64 hex digits (optionally prefixed 0x); got {}",
                hexpart.len()
            )));
        }
        if let Some(b) = b64 {
            return Err(Error::Other(format!(
                "AES key decodes from base64 to {} bytes; AES-256 needs 32",
                b.len()
            )));
        }
        Err(Error::Other(
            "AES key must be 64 hex digits (optionally prefixed 0x) or base64 of 32 bytes".into(),
        ))
    }

    /// Decrypt whole 16-byte blocks in place with AES-256-ECB.
    pub fn decrypt_ecb(&self, data: &mut [u8]) -> Result<()> {
        if !data.len().is_multiple_of(16) {
            return Err(Error::Other(format!(
                "encrypted data of {} bytes is not a multiple of 16",
                data.len()
            )));
        }
        let cipher = aes::Aes256::new(&Array::from(self.0));
        let (blocks, _) = Array::<u8, aes::cipher::consts::U16>::slice_as_chunks_mut(data);
        cipher.decrypt_blocks(blocks);
        Ok(())
    }

    /// Decrypt (or encrypt) with AES-256-CTR: counter block `iv ‖ u32 BE`, counter from 0.
    pub fn apply_ctr(&self, iv: &[u8; 12], data: &mut [u8]) {
        let mut nonce = [0u8; 16];
        nonce[..12].copy_from_slice(iv);
        let mut c = ctr::Ctr32BE::<aes::Aes256>::new(&Array::from(self.0), &Array::from(nonce));
        c.apply_keystream(data);
    }

    /// [`AesKey::apply_ctr`] starting `offset` bytes into the key stream
    /// (a piece of a larger encryption unit, as pak blocks are).
    pub fn apply_ctr_at(&self, iv: &[u8; 12], offset: u64, data: &mut [u8]) {
        use aes::cipher::StreamCipherSeek;
        let mut nonce = [0u8; 16];
        nonce[..12].copy_from_slice(iv);
        let mut c = ctr::Ctr32BE::<aes::Aes256>::new(&Array::from(self.0), &Array::from(nonce));
        c.seek(offset);
        c.apply_keystream(data);
    }

    /// Encrypt whole 16-byte blocks in place with AES-256-ECB (pak writing, tests).
    pub fn encrypt_ecb(&self, data: &mut [u8]) -> Result<()> {
        use aes::cipher::BlockCipherEncrypt;
        if !data.len().is_multiple_of(16) {
            return Err(Error::Other("data is not a multiple of 16 bytes".into()));
        }
        let cipher = aes::Aes256::new(&Array::from(self.0));
        let (blocks, _) = Array::<u8, aes::cipher::consts::U16>::slice_as_chunks_mut(data);
        cipher.encrypt_blocks(blocks);
        Ok(())
    }
}

fn decode_base64(t: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    let e = &base64::engine::general_purpose::STANDARD;
    e.decode(t).ok()
}

/// Keys for a run: keys by GUID (from a JSON file) and keys for any GUID
/// (from the command line).
#[derive(Clone, Debug, Default)]
pub struct KeyRing {
    by_guid: HashMap<Guid, AesKey>,
    any: Vec<AesKey>,
}

impl KeyRing {
    /// An empty ring.
    pub fn new() -> KeyRing {
        KeyRing::default()
    }

    /// True when no key is known.
    pub fn is_empty(&self) -> bool {
        self.by_guid.is_empty() && self.any.is_empty()
    }

    /// Add a key usable for any GUID.
    pub fn add(&mut self, key: AesKey) {
        self.any.push(key);
    }

    /// Add a key for one GUID.
    pub fn add_for(&mut self, guid: Guid, key: AesKey) {
        self.by_guid.insert(guid, key);
    }

    /// Parse a JSON object mapping key GUIDs (32 hex digits, dashes and braces
    /// allowed; all zero = default key) to keys (hex or base64), or
    /// UnrealBuildTool's `Crypto.json` (`EncryptionKey.Key` in base64 for the
    /// zero GUID, `SecondaryEncryptionKeys[].{Guid, Key}`).
    pub fn add_json(&mut self, text: &str) -> Result<()> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| Error::Other(format!("keys file is not valid JSON: {e}")))?;
        if v.get("EncryptionKey").is_some() || v.get("SecondaryEncryptionKeys").is_some() {
            return self.add_crypto_json(&v);
        }
        let obj = v.as_object().ok_or_else(|| {
            Error::Other("keys file must be a JSON object {\"GUID\": \"key\", ...}".into())
        })?;
        for (g, k) in obj {
            let clean: String = g
                .chars()
                .filter(|c| !matches!(c, '-' | '{' | '}'))
                .collect();
            let clean = clean.strip_prefix("0x").unwrap_or(&clean);
            let guid = Guid::parse(clean).ok_or_else(|| {
                Error::Other(format!("keys file: {g:?} is not a GUID (32 hex digits)"))
            })?;
            let ks = k
                .as_str()
                .ok_or_else(|| Error::Other(format!("keys file: key for {g} is not a string")))?;
            let key =
                AesKey::parse(ks).map_err(|e| Error::Other(format!("keys file, {g}: {e}")))?;
            self.add_for(guid, key);
        }
        Ok(())
    }

    fn add_crypto_json(&mut self, v: &serde_json::Value) -> Result<()> {
        let one = |k: &serde_json::Value, what: &str| -> Result<Option<(Guid, AesKey)>> {
            if k.is_null() {
                return Ok(None);
            }
            let key = k.get("Key").and_then(|x| x.as_str()).ok_or_else(|| {
                Error::Other(format!("Crypto.json: {what} has no \"Key\" string"))
            })?;
            let guid = match k.get("Guid").and_then(|x| x.as_str()) {
                None => Guid::default(),
                Some(g) => {
                    let clean: String = g
                        .chars()
                        .filter(|c| !matches!(c, '-' | '{' | '}'))
                        .collect();
                    Guid::parse(&clean).ok_or_else(|| {
                        Error::Other(format!(
                            "Crypto.json: {what}: Guid {g:?} is not 32 hex digits"
                        ))
                    })?
                }
            };
            let key = AesKey::parse(key)
                .map_err(|e| Error::Other(format!("Crypto.json: {what}: {e}")))?;
            Ok(Some((guid, key)))
        };
        if let Some(k) = v.get("EncryptionKey") {
            if let Some((g, key)) = one(k, "EncryptionKey")? {
                self.add_for(g, key);
            }
        }
        if let Some(list) = v.get("SecondaryEncryptionKeys").and_then(|x| x.as_array()) {
            for (i, k) in list.iter().enumerate() {
                if let Some((g, key)) = one(k, &format!("SecondaryEncryptionKeys[{i}]"))? {
                    self.add_for(g, key);
                }
            }
        }
        Ok(())
    }

    /// The key for exactly this GUID, if one was given for it.
    pub fn for_guid(&self, guid: Guid) -> Option<AesKey> {
        self.by_guid.get(&guid).copied()
    }

    /// Keys to try for a container with this key GUID, best first.
    pub fn candidates(&self, guid: Guid) -> Vec<AesKey> {
        let mut out = Vec::new();
        if let Some(k) = self.by_guid.get(&guid) {
            out.push(*k);
        }
        for k in &self.any {
            if !out.contains(k) {
                out.push(*k);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "435545345061727365466978747572654145534b657930313233343536373839";

    #[test]
    fn parses_key_forms() {
        let a = AesKey::parse(HEX).unwrap();
        assert_eq!(&a.0, b"CUE4ParseFixtureAESKey0123456789");
        assert_eq!(AesKey::parse(&format!("0x{HEX}")).unwrap(), a);
        // base64 of the same 32 bytes
        let b = AesKey::parse("Q1VFNFBhcnNlRml4dHVyZUFFU0tleTAxMjM0NTY3ODk=").unwrap();
        assert_eq!(a, b);
        assert!(AesKey::parse("1234").is_err());
        let mut ring = KeyRing::new();
        ring.add_json(&format!(
            "{{\"00000000-00000000-00000000-00000000\": \"0x{HEX}\"}}"
        ))
        .unwrap();
        assert_eq!(ring.candidates(Guid::default()), vec![a]);
        assert!(ring.add_json("[1]").is_err());
    }

    #[test]
    fn base64_key_starting_with_0x_is_base64() {
        use base64::Engine;
        // "0x" in base64 is 0xD3 then a byte whose high nibble is 1.
        let mut raw = [0x5Au8; 32];
        raw[0] = 0xD3;
        raw[1] = 0x1C;
        let b64 = base64::engine::general_purpose::STANDARD.encode(raw);
        assert!(b64.starts_with("0x"), "{b64}");
        assert_eq!(AesKey::parse(&b64).unwrap().0, raw);
        assert_eq!(AesKey::parse(&format!(" {b64}\n")).unwrap().0, raw);
        let mut ring = KeyRing::new();
        ring.add_json(&format!(
            "{{\"00000000000000000000000000000000\": \"{b64}\"}}"
        ))
        .unwrap();
        assert_eq!(ring.candidates(Guid::default()), vec![AesKey(raw)]);
        // Hex still needs exactly 64 digits after 0x.
        let e = AesKey::parse(&format!("0x{}", &HEX[..62]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("64 hex digits"), "{e}");
        assert!(AesKey::parse("0xZZ").is_err());
    }

    #[test]
    fn ecb_and_ctr_round_trip() {
        let k = AesKey::parse(HEX).unwrap();
        let plain: Vec<u8> = (0..64u8).collect();
        let mut d = plain.clone();
        k.encrypt_ecb(&mut d).unwrap();
        assert_ne!(d, plain);
        k.decrypt_ecb(&mut d).unwrap();
        assert_eq!(d, plain);
        let iv = [7u8; 12];
        let mut d = plain.clone();
        k.apply_ctr(&iv, &mut d);
        assert_ne!(d, plain);
        k.apply_ctr(&iv, &mut d);
        assert_eq!(d, plain);
    }
}
