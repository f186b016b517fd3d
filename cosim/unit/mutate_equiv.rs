use gpucosim::mutate::equiv::*;

#[test]
fn evaluates_parameter_expressions() {
    let env = |n: &str| (n == "GFX").then_some(9);
    assert_eq!(eval("GFX >= 11", &env), Some(0));
    assert_eq!(eval("GFX > 10", &env), Some(0));
    assert_eq!(eval("(GFX == 9) ? 4'd3 : 4'd2", &env), Some(3));
    assert_eq!(eval("GFX >= 11 && x", &env), None);
    assert_eq!(eval("~GFX", &env), None);
    assert_eq!(eval("1 + 2 * 3", &env), Some(7));
    // A cast's size, unbased literals and X digits are not evaluated.
    assert_eq!(eval("8'(GFX)", &env), None);
    assert_eq!(eval("'0", &env), None);
    assert_eq!(eval("4'bx0", &env), None);
}
