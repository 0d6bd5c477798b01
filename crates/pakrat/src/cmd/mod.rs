//! One module of handlers per format.

pub mod iostore;
pub mod package;
pub mod pak;
pub mod system;
pub mod umod;
pub mod uz;
