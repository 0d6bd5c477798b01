//! Merging a mod's registry into a game's.
