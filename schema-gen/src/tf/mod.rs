//! The Terraform side: cty types and provider schemas.

mod implied;
mod schema;
mod ty;

pub use schema::{
    Attribute, AttributeType, Block, BlockNesting, Function, NestedBlock, NestedObject, ObjectNesting, Parameter,
    ProviderSchema, ProvidersSchemaFile, Schema, StringKind,
};
pub use ty::{ObjectType, Type, TypeSpecError};
