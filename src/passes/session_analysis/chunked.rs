//! The analysis's tables by op and by function, whose length is known only
//! once the walk that fills them is over: a vector that grows a chunk at a
//! time. A `Vec` grown by doubling copies what it holds at each step, and on
//! a large module those copies outgrow the cache and the old buffers go back
//! to the allocator in blocks large enough that it sorts out its free lists
//! on each. Here an entry never moves once pushed, and chunks are only freed
//! with the table.

use std::ops::{Index, IndexMut};

pub struct Chunked<T> {
    /// Full chunks of [`Chunked::CHUNK`] entries, then the last one.
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Self {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    /// Entries per chunk: as many as fit in 32 KiB, rounded down to a power
    /// of two so that an index splits with a shift and a mask.
    const CHUNK: usize = {
        let size = if size_of::<T>() == 0 {
            1
        } else {
            size_of::<T>()
        };
        let fit = (32 << 10) / size;
        if fit == 0 { 1 } else { 1 << fit.ilog2() }
    };

    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn push(&mut self, value: T) {
        if self.len.is_multiple_of(Self::CHUNK) {
            self.chunks.push(Vec::with_capacity(Self::CHUNK));
        }
        if let Some(last) = self.chunks.last_mut() {
            last.push(value);
        }
        self.len += 1;
    }

    #[inline]
    pub fn get(&self, index: usize) -> Option<&T> {
        self.chunks
            .get(index / Self::CHUNK)?
            .get(index % Self::CHUNK)
    }

    /// The entries in the order they were pushed.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flatten()
    }
}

impl<T> Index<usize> for Chunked<T> {
    type Output = T;

    #[inline]
    fn index(&self, index: usize) -> &T {
        &self.chunks[index / Self::CHUNK][index % Self::CHUNK]
    }
}

impl<T> IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut T {
        &mut self.chunks[index / Self::CHUNK][index % Self::CHUNK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_a_vec_holds_across_chunks() {
        // u64: 4096 a chunk, so 10,000 fill two chunks and part of a third.
        let mut chunked = Chunked::default();
        let mut vec = Vec::new();
        for value in 0..10_000_u64 {
            chunked.push(value * 3);
            vec.push(value * 3);
        }
        assert_eq!(chunked.len(), vec.len());
        assert!(chunked.iter().eq(vec.iter()));
        for index in [0, 4095, 4096, 8191, 8192, 9_999] {
            assert_eq!(chunked[index], vec[index]);
            assert_eq!(chunked.get(index), vec.get(index));
        }
        assert_eq!(chunked.get(10_000), None);
        chunked[4096] = 7;
        assert_eq!(chunked.get(4096), Some(&7));
        assert_eq!(chunked.chunks.len(), 3);
        assert!(
            chunked.chunks[..2]
                .iter()
                .all(|chunk| chunk.len() == Chunked::<u64>::CHUNK)
        );
    }

    #[test]
    fn chunks_are_powers_of_two_of_at_most_32_kib() {
        assert_eq!(Chunked::<u64>::CHUNK, 4096);
        assert_eq!(Chunked::<u8>::CHUNK, 32 << 10);
        assert_eq!(Chunked::<[u8; 192]>::CHUNK, 128);
        assert_eq!(Chunked::<[u8; 1 << 16]>::CHUNK, 1);
        assert_eq!(Chunked::<()>::CHUNK, 32 << 10);
    }
}
