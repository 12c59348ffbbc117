//! What the lowerings read of memref types: ranks, shapes and sizes in
//! bytes, of types the check phase accepted.

use melior::ir::{
    Type,
    r#type::{MemRefType, ShapedTypeLike},
};

use crate::passes::ir;

/// The number of bytes of a statically shaped memref, at most `i64::MAX`.
pub(super) fn static_size_in_bytes(memref: Type<'_>) -> Result<i64, String> {
    let shape =
        static_shape(memref).ok_or_else(|| format!("the result {memref} needs a static shape"))?;
    let element_size = memref_element_size(memref);
    shape
        .iter()
        .try_fold(element_size, |product, extent| product.checked_mul(*extent))
        .ok_or_else(|| format!("{memref} takes more than 2^63 - 1 bytes"))
}

pub(super) fn memref_rank(memref: Type<'_>) -> usize {
    MemRefType::try_from(memref).map_or(0, |memref| memref.rank())
}

/// The dimensions of a statically shaped memref.
pub(super) fn static_shape(memref: Type<'_>) -> Option<Vec<i64>> {
    dim_sizes(memref)?.into_iter().collect()
}

/// The size of each dimension of a ranked memref, `None` where it is dynamic.
pub(super) fn dim_sizes(memref: Type<'_>) -> Option<Vec<Option<i64>>> {
    let memref = MemRefType::try_from(memref).ok()?;
    Some(
        (0..memref.rank())
            .map(|dim| match memref.dim_size(dim).ok()? {
                melior::ir::r#type::DimSize::Static(extent) => i64::try_from(extent).ok(),
                melior::ir::r#type::DimSize::Dynamic => None,
            })
            .collect(),
    )
}

/// The element size of a memref the check phase accepted (at most `i64::MAX`).
pub(super) fn memref_element_size(memref: Type<'_>) -> i64 {
    let size =
        ir::element_size_in_bytes(ir::element_type(memref)).expect("checked before lowering");
    size as i64
}
