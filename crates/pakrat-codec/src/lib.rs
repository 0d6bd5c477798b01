//! What every UE4/UE5 format shares, below the `.pak`, IoStore and package
//! crates: the block codecs ([`compress`]), AES keys and ciphers ([`keys`]),
//! `FString` ([`fstring`]) and the engine's name hashes, name batches and
//! package ids ([`names`]).
#![deny(missing_docs)]

pub mod compress;
pub mod fstring;
pub mod keys;
pub mod names;

pub use keys::{AesKey, KeyRing};
