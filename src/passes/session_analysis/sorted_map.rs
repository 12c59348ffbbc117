//! The maps of the abstract state: a vector of entries sorted by key, with
//! the part of `BTreeMap`'s interface the analysis uses and the same order
//! of iteration. A state holds a few handles, sessions and tokens and is
//! cloned at every branch, loop and call: a vector clones in one allocation
//! of the entries' size, where a `BTreeMap` allocates a node of eleven
//! entries per few entries, and the copies kept for calling contexts take
//! that much memory for the rest of the analysis.

use std::{
    iter::FusedIterator,
    ops::Index,
    slice::{Iter, IterMut},
};

#[derive(Debug, PartialEq, Eq)]
pub struct SortedMap<K, V> {
    /// Sorted by key, each key once.
    entries: Vec<(K, V)>,
}

impl<K: Clone, V: Clone> Clone for SortedMap<K, V> {
    fn clone(&self) -> Self {
        Self {
            entries: self.entries.clone(),
        }
    }

    /// Copies into `self`'s buffer (the derived one would drop it).
    fn clone_from(&mut self, source: &Self) {
        self.entries.clone_from(&source.entries);
    }
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
        }
    }
}

impl<K: Ord + Copy, V> SortedMap<K, V> {
    fn position(&self, key: &K) -> Result<usize, usize> {
        self.entries.binary_search_by(|(other, _)| other.cmp(key))
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, key: &K) -> Option<&V> {
        let index = self.position(key).ok()?;
        Some(&self.entries[index].1)
    }

    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        let index = self.position(key).ok()?;
        Some(&mut self.entries[index].1)
    }

    pub fn contains_key(&self, key: &K) -> bool {
        self.position(key).is_ok()
    }

    /// Sets `key`'s value; returns the one it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        // Keys often come in order (a copy, a projection): append.
        if self.entries.last().is_none_or(|(last, _)| *last < key) {
            self.entries.push((key, value));
            return None;
        }
        match self.position(&key) {
            Ok(index) => Some(std::mem::replace(&mut self.entries[index].1, value)),
            Err(index) => {
                self.entries.insert(index, (key, value));
                None
            }
        }
    }

    pub fn remove(&mut self, key: &K) -> Option<V> {
        let index = self.position(key).ok()?;
        Some(self.entries.remove(index).1)
    }

    /// `key`'s value, made by `make` if there is none.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let index = match self.position(&key) {
            Ok(index) => index,
            Err(index) => {
                self.entries.insert(index, (key, make()));
                index
            }
        };
        &mut self.entries[index].1
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(key, value)| keep(key, value));
    }

    /// Gives back the room of entries removed (for a map kept for long).
    pub fn shrink_to_fit(&mut self) {
        self.entries.shrink_to_fit();
    }

    pub fn iter(&self) -> Entries<'_, K, V> {
        Entries(self.entries.iter())
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.entries.iter().map(|(key, _)| key)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.entries.iter().map(|(_, value)| value)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> + '_ {
        self.entries.iter_mut().map(|(_, value)| value)
    }
}

/// The entries in the order of their keys, as `BTreeMap::iter` gives them.
pub struct Entries<'m, K, V>(Iter<'m, (K, V)>);

impl<'m, K, V> Iterator for Entries<'m, K, V> {
    type Item = (&'m K, &'m V);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(key, value)| (key, value))
    }
}

impl<K, V> FusedIterator for Entries<'_, K, V> {}

/// The entries with their values mutable, in the order of their keys.
pub struct EntriesMut<'m, K, V>(IterMut<'m, (K, V)>);

impl<'m, K, V> Iterator for EntriesMut<'m, K, V> {
    type Item = (&'m K, &'m mut V);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(key, value)| (&*key, value))
    }
}

impl<'m, K: Ord + Copy, V> IntoIterator for &'m SortedMap<K, V> {
    type Item = (&'m K, &'m V);
    type IntoIter = Entries<'m, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'m, K, V> IntoIterator for &'m mut SortedMap<K, V> {
    type Item = (&'m K, &'m mut V);
    type IntoIter = EntriesMut<'m, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        EntriesMut(self.entries.iter_mut())
    }
}

impl<K: Ord + Copy, V> Extend<(K, V)> for SortedMap<K, V> {
    /// Inserts each entry: a later value of a key replaces an earlier one.
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, entries: I) {
        for (key, value) in entries {
            self.insert(key, value);
        }
    }
}

impl<K: Ord + Copy, V> FromIterator<(K, V)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut map = Self::default();
        map.extend(entries);
        map
    }
}

impl<K: Ord + Copy, V> Index<&K> for SortedMap<K, V> {
    type Output = V;

    fn index(&self, key: &K) -> &V {
        self.get(key).expect("no entry for the key")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn behaves_as_a_btree_map() {
        let mut sorted = SortedMap::default();
        let mut btree = BTreeMap::new();
        // Keys in and out of order, repeated, removed, retained.
        for (step, key) in [5_u32, 1, 9, 5, 3, 12, 1, 7].into_iter().enumerate() {
            assert_eq!(sorted.insert(key, step), btree.insert(key, step));
        }
        assert_eq!(sorted.remove(&9), btree.remove(&9));
        assert_eq!(sorted.remove(&9), btree.remove(&9));
        *sorted.get_or_insert_with(4, || 40) += 1;
        *btree.entry(4).or_insert_with(|| 40) += 1;
        *sorted.get_or_insert_with(3, || 30) += 1;
        *btree.entry(3).or_insert_with(|| 30) += 1;
        sorted.retain(|key, value| {
            *value += 1;
            key % 4 != 0
        });
        btree.retain(|key, value| {
            *value += 1;
            key % 4 != 0
        });
        let entries: Vec<_> = sorted.iter().map(|(k, v)| (*k, *v)).collect();
        let expected: Vec<_> = btree.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(entries, expected);
        assert_eq!(sorted.get(&7), btree.get(&7));
        assert!(!sorted.contains_key(&12) && !sorted.contains_key(&9));
        let collected: SortedMap<u32, usize> = [(3, 0), (1, 1), (3, 2)].into_iter().collect();
        assert_eq!(collected.iter().collect::<Vec<_>>(), [(&1, &1), (&3, &2)]);
    }
}
