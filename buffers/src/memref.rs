//! MLIR's strided memref descriptors in memory, as the lowered code and the
//! kernels lay them out (`executor_abi::descriptor`): `{T *allocated, T
//! *aligned, i64 offset, i64 sizes[rank], i64 strides[rank]}`, every field 8
//! bytes. Every `unsafe` access
//! to a descriptor or to the data it points at lives in this module.

use std::borrow::Cow;

use executor_abi::descriptor;
use serde::{Deserialize, Serialize};

/// A memref's elements, densely packed in row-major order: what crosses a
/// process or machine boundary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DenseBuffer {
    pub element_size: u64,
    pub sizes: Vec<i64>,
    #[serde(with = "crate::raw_bytes")]
    pub data: Vec<u8>,
}

impl DenseBuffer {
    /// The number of bytes the sizes call for, or None if it overflows or a
    /// size is negative.
    pub fn expected_len(element_size: u64, sizes: &[i64]) -> Option<usize> {
        dense_len(element_size, sizes.iter().copied())
    }

    /// Whether `data` holds exactly the bytes the sizes call for.
    pub fn is_consistent(&self) -> bool {
        Self::expected_len(self.element_size, &self.sizes) == Some(self.data.len())
    }
}

/// The bytes of elements of `element_size` bytes and `sizes` densely packed,
/// or None if that overflows or a size is negative.
pub fn dense_len(element_size: u64, sizes: impl Iterator<Item = i64>) -> Option<usize> {
    let mut sizes = sizes;
    sizes
        .try_fold(element_size, |product, size| {
            product.checked_mul(u64::try_from(size).ok()?)
        })
        .and_then(|bytes| usize::try_from(bytes).ok())
}

/// A memref's elements densely packed in row-major order, where they are:
/// borrowed from the memref's own buffer when its layout is already that, or
/// else gathered into a buffer of its own. What a client sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DenseView<'a> {
    pub element_size: u64,
    pub sizes: Vec<i64>,
    pub data: Cow<'a, [u8]>,
}

/// A descriptor somewhere in memory, of a known rank and element size.
#[derive(Clone, Copy, Debug)]
pub struct Descriptor {
    address: *mut i64,
    rank: usize,
    element_size: usize,
}

// SAFETY: a descriptor is plain data; whoever hands one to another thread keeps
// it (and the buffer it points at) alive and unaliased while it is used there,
// as the synchronous ABI calls do.
unsafe impl Send for Descriptor {}

impl Descriptor {
    /// A view of the descriptor at `address`.
    ///
    /// # Safety
    ///
    /// `address` must point at a live, writable descriptor of `rank`
    /// (`descriptor::words(rank)` 8-byte words) whose buffer, if the descriptor is
    /// initialized, holds every element its sizes and strides reach.
    pub unsafe fn from_raw(address: *mut u8, rank: usize, element_size: usize) -> Self {
        Self {
            address: address.cast(),
            rank,
            element_size,
        }
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.address.cast()
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn element_size(&self) -> usize {
        self.element_size
    }

    fn word(&self, index: usize) -> i64 {
        // Checked in release builds too: `size(dim)` and `copy_from` reach
        // here with indices from safe code.
        assert!(
            index < descriptor::words(self.rank),
            "word {index} of a rank-{} descriptor",
            self.rank
        );
        // SAFETY: `from_raw`'s contract: the descriptor has `words(rank)` words.
        unsafe { self.address.add(index).read_unaligned() }
    }

    fn set_word(&self, index: usize, value: i64) {
        assert!(
            index < descriptor::words(self.rank),
            "word {index} of a rank-{} descriptor",
            self.rank
        );
        // SAFETY: as in `word`; the descriptor is writable.
        unsafe { self.address.add(index).write_unaligned(value) }
    }

    pub fn sizes(&self) -> Vec<i64> {
        (0..self.rank).map(|dim| self.size(dim)).collect()
    }

    pub fn size(&self, dim: usize) -> i64 {
        self.word(descriptor::size_word(dim))
    }

    /// The bytes its elements take densely packed, or None if that overflows
    /// or a size is negative (as [`DenseBuffer::expected_len`]).
    pub fn dense_len(&self) -> Option<usize> {
        dense_len(
            self.element_size as u64,
            (0..self.rank).map(|dim| self.size(dim)),
        )
    }

    fn stride(&self, dim: usize) -> i64 {
        self.word(descriptor::stride_word(self.rank, dim))
    }

    /// How many elements the sizes span (a negative size counts as 0).
    fn element_count(&self) -> usize {
        (0..self.rank)
            .map(|dim| self.size(dim).max(0) as usize)
            .product()
    }

    /// The bytes its elements take densely packed, as [`Self::append_dense`]
    /// appends them (a negative size counts as 0; at most `u64::MAX`).
    pub fn packed_len(&self) -> u64 {
        (0..self.rank)
            .map(|dim| self.size(dim).max(0) as u64)
            .fold(self.element_size as u64, u64::saturating_mul)
    }

    /// Whether the strides are those of a dense row-major layout.
    fn is_row_major(&self) -> bool {
        let mut expected = 1i64;
        for dim in (0..self.rank).rev() {
            let size = self.size(dim);
            if size != 1 && self.stride(dim) != expected {
                return false;
            }
            expected *= size.max(1);
        }
        true
    }

    /// The elements where they are, if the layout is dense row-major.
    fn row_major_data(&self) -> Option<&[u8]> {
        if !self.is_row_major() {
            return None;
        }
        let len = self.packed_len() as usize;
        if len == 0 {
            return Some(&[]);
        }
        let aligned = self.word(descriptor::ALIGNED) as *const u8;
        let offset = self.word(descriptor::OFFSET);
        // SAFETY: `from_raw`'s contract: a dense buffer holds every element
        // from the offset on, and stays alive and unchanged while the
        // descriptor is used (the borrow of `self`).
        Some(unsafe {
            std::slice::from_raw_parts(
                aligned.offset(offset as isize * self.element_size as isize),
                len,
            )
        })
    }

    /// The elements, densely packed in row-major order: the descriptor's own
    /// buffer if its layout is that already (no copy), or else a copy.
    pub fn dense_view(&self) -> DenseView<'_> {
        let data = match self.row_major_data() {
            Some(data) => Cow::Borrowed(data),
            None => Cow::Owned(self.gather()),
        };
        DenseView {
            element_size: self.element_size as u64,
            sizes: self.sizes(),
            data,
        }
    }

    /// Copies the elements into a dense row-major buffer, following the strides.
    pub fn to_dense(&self) -> DenseBuffer {
        let data = match self.row_major_data() {
            Some(data) => data.to_vec(),
            None => self.gather(),
        };
        DenseBuffer {
            element_size: self.element_size as u64,
            sizes: self.sizes(),
            data,
        }
    }

    /// Appends the elements to `bytes`, densely packed in row-major order.
    pub fn append_dense(&self, bytes: &mut Vec<u8>) {
        match self.row_major_data() {
            Some(data) => bytes.extend_from_slice(data),
            None => bytes.extend_from_slice(&self.gather()),
        }
    }

    /// The elements of a layout that is not dense row-major, gathered one by
    /// one along the strides.
    fn gather(&self) -> Vec<u8> {
        let sizes = self.sizes();
        let strides: Vec<i64> = (0..self.rank).map(|dim| self.stride(dim)).collect();
        let element_count = self.element_count();
        let aligned = self.word(descriptor::ALIGNED) as *const u8;
        let offset = self.word(descriptor::OFFSET);
        let mut data = Vec::with_capacity(self.packed_len() as usize);
        let mut index = vec![0i64; self.rank];
        for _ in 0..element_count {
            let linear: i64 = offset + index.iter().zip(&strides).map(|(i, s)| i * s).sum::<i64>();
            // SAFETY: `from_raw`'s contract: every element the sizes and
            // strides reach is inside the buffer.
            let element = unsafe {
                std::slice::from_raw_parts(
                    aligned.offset(linear as isize * self.element_size as isize),
                    self.element_size,
                )
            };
            data.extend_from_slice(element);
            for dim in (0..self.rank).rev() {
                index[dim] += 1;
                if index[dim] < sizes[dim] {
                    break;
                }
                index[dim] = 0;
            }
        }
        data
    }

    /// Points the descriptor at a new `malloc`ed buffer holding `dense`'s
    /// elements, which its owner releases with `free` (`memref.dealloc`).
    pub fn fill_from_dense(&self, dense: &DenseBuffer) {
        debug_assert_eq!(dense.sizes.len(), self.rank);
        self.fill_dense(dense.sizes.iter().copied(), &dense.data);
    }

    /// Points the descriptor at a new `malloc`ed copy of `data`, the elements
    /// of `sizes` (one per dimension) densely packed in row-major order.
    pub fn fill_dense(&self, sizes: impl Iterator<Item = i64>, data: &[u8]) {
        for (dim, size) in sizes.take(self.rank).enumerate() {
            self.set_word(descriptor::size_word(dim), size);
        }
        self.adopt_copy_of(data);
    }

    /// Points the descriptor at a new `malloc`ed buffer holding a dense copy
    /// of its elements, which its owner releases with `free`.
    pub fn take_own_copy(&self) {
        match self.row_major_data() {
            Some(data) => self.adopt_copy_of(data),
            None => self.adopt_copy_of(&self.gather()),
        }
    }

    /// Points the descriptor, its sizes set, at a new `malloc`ed copy of
    /// `data`: its elements densely packed in row-major order.
    fn adopt_copy_of(&self, data: &[u8]) {
        // SAFETY: malloc of at least one byte; checked for null below.
        let buffer = unsafe { libc::malloc(data.len().max(1)) }.cast::<u8>();
        assert!(
            !buffer.is_null(),
            "out of memory for a {}-byte result",
            data.len()
        );
        // SAFETY: the buffer was just allocated with room for the data.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), buffer, data.len()) };
        self.set_word(descriptor::ALLOCATED, buffer as i64);
        self.set_word(descriptor::ALIGNED, buffer as i64);
        self.set_word(descriptor::OFFSET, 0);
        let mut stride = 1i64;
        for dim in (0..self.rank).rev() {
            self.set_word(descriptor::stride_word(self.rank, dim), stride);
            stride *= self.size(dim).max(1);
        }
    }

    /// Copies the descriptor fields of `other` (the same rank) into this one.
    pub fn copy_from(&self, other: &Descriptor) {
        debug_assert_eq!(self.rank, other.rank);
        for index in 0..descriptor::words(self.rank) {
            self.set_word(index, other.word(index));
        }
    }

    /// The buffer the descriptor owns (its `allocated` pointer).
    pub fn allocated(&self) -> *mut u8 {
        self.word(descriptor::ALLOCATED) as *mut u8
    }

    /// Frees the buffer [`Self::fill_dense`] gave the descriptor and points
    /// it at none, so that whoever frees its outputs frees nothing twice.
    ///
    /// # Safety
    ///
    /// The descriptor's buffer is one `fill_dense` allocated, which nothing
    /// else has yet.
    pub unsafe fn free_filled(&self) {
        // SAFETY: the caller's contract: a malloc'ed buffer no one else has.
        unsafe { libc::free(self.allocated().cast()) };
        self.set_word(descriptor::ALLOCATED, 0);
        self.set_word(descriptor::ALIGNED, 0);
    }
}

/// A descriptor in memory this runtime owns, over a dense buffer it owns too:
/// how the executor side hands received data to a kernel.
pub struct OwnedDescriptor {
    words: Vec<i64>,
    data: Vec<u8>,
    element_size: usize,
}

impl OwnedDescriptor {
    /// A descriptor over a copy of `dense` (contiguous, offset 0).
    pub fn from_dense(dense: DenseBuffer) -> Self {
        let rank = dense.sizes.len();
        let mut words = vec![0i64; descriptor::words(rank)];
        let mut data = dense.data;
        let pointer = data.as_mut_ptr() as i64;
        words[descriptor::ALLOCATED] = pointer;
        words[descriptor::ALIGNED] = pointer;
        let mut stride = 1i64;
        for dim in (0..rank).rev() {
            words[descriptor::size_word(dim)] = dense.sizes[dim];
            words[descriptor::stride_word(rank, dim)] = stride;
            stride *= dense.sizes[dim].max(1);
        }
        Self {
            words,
            data,
            element_size: dense.element_size as usize,
        }
    }

    /// An uninitialized descriptor of `rank`, for a kernel to fill.
    pub fn empty(rank: usize, element_size: usize) -> Self {
        Self {
            words: vec![0; descriptor::words(rank)],
            data: Vec::new(),
            element_size,
        }
    }

    pub fn descriptor(&mut self) -> Descriptor {
        let rank = (self.words.len() - 3) / 2;
        // SAFETY: the words are a descriptor of `rank`; its buffer is `data`
        // (from `from_dense`) or one a kernel filled in.
        unsafe { Descriptor::from_raw(self.words.as_mut_ptr().cast(), rank, self.element_size) }
    }

    /// The elements, densely packed.
    pub fn to_dense(&mut self) -> DenseBuffer {
        self.descriptor().to_dense()
    }

    /// The buffer this descriptor was made over, to be reused.
    pub fn into_data(self) -> Vec<u8> {
        self.data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(values: &[f32]) -> Vec<u8> {
        values
            .iter()
            .flat_map(|value| value.to_ne_bytes())
            .collect()
    }

    #[test]
    fn dense_round_trip_through_an_owned_descriptor() {
        let dense = DenseBuffer {
            element_size: 4,
            sizes: vec![2, 3],
            data: floats(&[1., 2., 3., 4., 5., 6.]),
        };
        let mut owned = OwnedDescriptor::from_dense(dense.clone());
        let descriptor = owned.descriptor();
        assert_eq!([descriptor.stride(0), descriptor.stride(1)], [3, 1]);
        assert_eq!(owned.to_dense(), dense);
    }

    #[test]
    fn to_dense_follows_strides_and_offset() {
        // A 2x2 view with offset 1 and strides [3, 1] of a 3x3 buffer 0..9.
        let data = floats(&[0., 1., 2., 3., 4., 5., 6., 7., 8.]);
        let mut words = vec![data.as_ptr() as i64, data.as_ptr() as i64, 1, 2, 2, 3, 1];
        // SAFETY: the words describe a rank-2 view inside `data`.
        let view = unsafe { Descriptor::from_raw(words.as_mut_ptr().cast(), 2, 4) };
        assert_eq!(view.to_dense().data, floats(&[1., 2., 4., 5.]));
    }

    #[test]
    fn a_dense_view_borrows_a_row_major_buffer_and_copies_any_other() {
        let dense = DenseBuffer {
            element_size: 4,
            sizes: vec![2, 3],
            data: floats(&[1., 2., 3., 4., 5., 6.]),
        };
        let mut owned = OwnedDescriptor::from_dense(dense.clone());
        let descriptor = owned.descriptor();
        let view = descriptor.dense_view();
        assert!(matches!(view.data, Cow::Borrowed(_)));
        assert_eq!((view.sizes, &*view.data), (dense.sizes, &dense.data[..]));

        let data = floats(&[0., 1., 2., 3., 4., 5., 6., 7., 8.]);
        let mut words = vec![data.as_ptr() as i64, data.as_ptr() as i64, 1, 2, 2, 3, 1];
        // SAFETY: the words describe a rank-2 view inside `data`.
        let strided = unsafe { Descriptor::from_raw(words.as_mut_ptr().cast(), 2, 4) };
        let view = strided.dense_view();
        assert!(matches!(view.data, Cow::Owned(_)));
        assert_eq!(&*view.data, &floats(&[1., 2., 4., 5.])[..]);

        let mut empty = OwnedDescriptor::from_dense(DenseBuffer {
            element_size: 4,
            sizes: vec![0],
            data: Vec::new(),
        });
        assert!(empty.descriptor().dense_view().data.is_empty());
    }

    #[test]
    fn fill_from_dense_makes_a_contiguous_malloced_copy() {
        let dense = DenseBuffer {
            element_size: 8,
            sizes: vec![3],
            data: (0u8..24).collect(),
        };
        let mut owned = OwnedDescriptor::empty(1, 8);
        let descriptor = owned.descriptor();
        descriptor.fill_from_dense(&dense);
        assert_eq!(descriptor.to_dense(), dense);
        // SAFETY: fill_from_dense allocated it with malloc.
        unsafe { libc::free(descriptor.allocated().cast()) };
    }

    #[test]
    fn take_own_copy_packs_a_strided_view_into_a_malloced_buffer() {
        // A 2x2 view with offset 1 and strides [3, 1] of a 3x3 buffer 0..9.
        let data = floats(&[0., 1., 2., 3., 4., 5., 6., 7., 8.]);
        let mut words = vec![data.as_ptr() as i64, data.as_ptr() as i64, 1, 2, 2, 3, 1];
        // SAFETY: the words describe a rank-2 view inside `data`.
        let view = unsafe { Descriptor::from_raw(words.as_mut_ptr().cast(), 2, 4) };
        view.take_own_copy();
        assert_ne!(view.allocated(), data.as_ptr().cast_mut());
        assert_eq!(&words[2..], [0, 2, 2, 2, 1]);
        assert_eq!(view.to_dense().data, floats(&[1., 2., 4., 5.]));
        // SAFETY: take_own_copy allocated it with malloc.
        unsafe { libc::free(view.allocated().cast()) };
    }

    #[test]
    fn expected_len_rejects_overflow_and_negative_sizes() {
        assert_eq!(DenseBuffer::expected_len(4, &[2, 3]), Some(24));
        assert_eq!(DenseBuffer::expected_len(8, &[i64::MAX, 2]), None);
        assert_eq!(DenseBuffer::expected_len(4, &[-1]), None);
    }

    #[test]
    #[should_panic(expected = "word 5 of a rank-1 descriptor")]
    fn a_size_past_the_rank_is_refused_not_read() {
        let mut owned = OwnedDescriptor::empty(1, 4);
        // Rank 1: allocated, aligned, offset, one size, one stride; size(2)
        // would be the word after them.
        owned.descriptor().size(2);
    }
}
