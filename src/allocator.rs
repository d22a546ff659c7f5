//! mimalloc as the global allocator, asked for alignment only when it matters.
//!
//! The `mimalloc` crate's allocator passes every layout's alignment to
//! `mi_malloc_aligned`, whose fast path covers only blocks up to 1 KiB: a sample's larger
//! buffers (a boxed sampler future, a response body) then took mimalloc's generic
//! aligned path. Every mimalloc block is aligned to a machine word (its size classes are
//! whole words), so layouts that ask no more go to the plain calls; others still use the
//! aligned ones.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};

/// The alignment every mimalloc block has: a machine word (`MI_INTPTR_SIZE`).
const WORD: usize = std::mem::size_of::<usize>();

pub struct MiMalloc;

/// Whether mimalloc's plain calls already give `layout`'s alignment.
fn plain(layout: &Layout) -> bool {
    layout.align() <= WORD
}

// SAFETY: every call forwards to mimalloc, which returns blocks of at least the size
// asked, word-aligned or aligned as asked, and frees any block it gave with `mi_free`.
unsafe impl GlobalAlloc for MiMalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if plain(&layout) {
            mi_malloc(layout.size()) as *mut u8
        } else {
            mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if plain(&layout) {
            mi_zalloc(layout.size()) as *mut u8
        } else {
            mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi_free(ptr as *mut c_void);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if plain(&layout) {
            mi_realloc(ptr as *mut c_void, new_size) as *mut u8
        } else {
            mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_have_the_alignment_asked_for_in_every_path() {
        let allocator = MiMalloc;
        for (size, align) in [
            (1, 1),
            (8, 8),
            (24, 8),
            (3000, 8),
            (24, 16),
            (48, 16),
            (3000, 16),
            (1, 16),
            (64, 64),
            (4096, 4096),
        ] {
            let layout = Layout::from_size_align(size, align).unwrap();
            unsafe {
                let p = allocator.alloc(layout);
                assert!(!p.is_null());
                assert_eq!(p as usize % align, 0, "{size} {align}");
                p.write_bytes(0xAB, size);
                let q = allocator.realloc(p, layout, size * 3);
                assert_eq!(q as usize % align, 0, "realloc {size} {align}");
                assert_eq!(*q, 0xAB);
                allocator.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                let z = allocator.alloc_zeroed(layout);
                assert_eq!(z as usize % align, 0, "zeroed {size} {align}");
                assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                allocator.dealloc(z, layout);
            }
        }
    }
}
