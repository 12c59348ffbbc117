//! The executor dialect as Rust code sees it: registered through melior, built
//! with the typed builders melior generates from `td/ExecutorOps.td`, verified
//! by the C++ generated from the same file.

use executor_mlir::{
    dialect::{self, executor},
    registration,
};
use melior::{
    Context,
    dialect::{DialectRegistry, func},
    ir::{
        Block, BlockLike, Location, Module, Region, RegionLike,
        attribute::{StringAttribute, TypeAttribute},
        operation::OperationLike,
        r#type::FunctionType,
    },
};

fn context() -> Context {
    let registry = DialectRegistry::new();
    registration::register_all_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    context
}

/// A module with one `func.func @host()` whose body `fill` appends ops to.
fn host_module<'c>(context: &'c Context, fill: impl FnOnce(&Block<'c>)) -> Module<'c> {
    let location = Location::unknown(context);
    let module = Module::new(location);
    let body = Block::new(&[]);
    fill(&body);
    body.append_operation(func::r#return(&[], location));
    let region = Region::new();
    region.append_block(body);
    module.body().append_operation(func::func(
        context,
        StringAttribute::new(context, "host"),
        TypeAttribute::new(FunctionType::new(context, &[], &[]).into()),
        region,
        &[],
        location,
    ));
    module
}

#[test]
fn generated_builders_make_ops_that_verify_and_print_in_the_reference_syntax() {
    let context = context();
    let location = Location::unknown(&context);
    let session_type = dialect::session_type(&context);
    let token_type = dialect::token_type(&context);

    let module = host_module(&context, |body| {
        let open = body.append_operation(
            executor::open(
                &context,
                session_type,
                StringAttribute::new(&context, "local"),
                location,
            )
            .into(),
        );
        let session = open.result(0).expect("open has a result").into();
        body.append_operation(
            executor::launch_async(
                &context,
                token_type,
                session,
                StringAttribute::new(&context, "warm_up"),
                StringAttribute::new(&context, "kernels.o"),
                location,
            )
            .into(),
        );
        body.append_operation(executor::close(&context, session, location).into());
    });

    assert!(module.as_operation().verify(), "the built module verifies");
    let text = module.as_operation().to_string();
    assert!(
        text.contains(r#"executor.open("local") : !executor.session"#),
        "{text}"
    );
    assert!(
        text.contains(r#"executor.launch_async %0("warm_up", "kernels.o") : !executor.session -> !executor.token"#),
        "{text}"
    );
    assert!(
        text.contains("executor.close %0 : !executor.session"),
        "{text}"
    );
}

#[test]
fn an_op_built_with_an_empty_address_fails_verification() {
    let context = context();
    let location = Location::unknown(&context);
    let session_type = dialect::session_type(&context);

    let module = host_module(&context, |body| {
        body.append_operation(
            executor::open(
                &context,
                session_type,
                StringAttribute::new(&context, ""),
                location,
            )
            .into(),
        );
    });

    assert!(
        !module.as_operation().verify(),
        "an empty address is rejected by the ODS constraint"
    );
}
