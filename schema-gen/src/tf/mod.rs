//! The Terraform side: cty types and provider schemas.

mod identity;
mod implied;
mod schema;
mod ty;

pub use identity::{IdentityAttribute, IdentitySchema};
pub use schema::{
    Attribute, AttributeType, Block, BlockNesting, Function, NestedBlock, NestedObject, ObjectNesting, Parameter,
    ProviderSchema, ProvidersSchemaFile, Schema, StringKind,
};
pub use ty::{ObjectType, Type, TypeSpecError};
