//! The user-space UDP link emulator and the interop harness (to be written).
