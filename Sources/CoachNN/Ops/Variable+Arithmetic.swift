/// Broadcasting arithmetic on variables. Gradients of broadcast operands are summed
/// back to their own shapes; an operand that needs no gradient (data, a dropout mask, a frozen
/// parameter) gets none computed.
extension Variable {
    public static func + (a: Variable, b: Variable) -> Variable {
        let sa = a.shape, sb = b.shape, (da, db) = a.tape.needGradients(a, b)
        return a.tape.record(a.value + b.value, inputs: [a, b]) { g in
            [da ? g.summed(toShape: sa) : nil, db ? g.summed(toShape: sb) : nil]
        }
    }

    public static func - (a: Variable, b: Variable) -> Variable {
        let sa = a.shape, sb = b.shape, (da, db) = a.tape.needGradients(a, b)
        return a.tape.record(a.value - b.value, inputs: [a, b]) { g in
            [da ? g.summed(toShape: sa) : nil, db ? (-g).summed(toShape: sb) : nil]
        }
    }

    public static func * (a: Variable, b: Variable) -> Variable {
        let va = a.value, vb = b.value, (da, db) = a.tape.needGradients(a, b)
        return a.tape.record(va * vb, inputs: [a, b]) { g in
            [da ? (g * vb).summed(toShape: va.shape) : nil, db ? (g * va).summed(toShape: vb.shape) : nil]
        }
    }

    public static func / (a: Variable, b: Variable) -> Variable {
        let va = a.value, vb = b.value, (da, db) = a.tape.needGradients(a, b)
        return a.tape.record(va / vb, inputs: [a, b]) { g in
            [da ? (g / vb).summed(toShape: va.shape) : nil,
             db ? (-(g * va) / (vb * vb)).summed(toShape: vb.shape) : nil]
        }
    }

    public static func + (a: Variable, b: Float) -> Variable {
        a.tape.record(a.value + b, inputs: [a]) { g in [g] }
    }

    public static func - (a: Variable, b: Float) -> Variable {
        a.tape.record(a.value - b, inputs: [a]) { g in [g] }
    }

    public static func * (a: Variable, b: Float) -> Variable {
        a.tape.record(a.value * b, inputs: [a]) { g in [g * b] }
    }

    public static func / (a: Variable, b: Float) -> Variable {
        a.tape.record(a.value / b, inputs: [a]) { g in [g / b] }
    }

    public static func + (a: Float, b: Variable) -> Variable { b + a }
    public static func * (a: Float, b: Variable) -> Variable { b * a }

    public static func - (a: Float, b: Variable) -> Variable {
        b.tape.record(a - b.value, inputs: [b]) { g in [-g] }
    }

    public static prefix func - (a: Variable) -> Variable {
        a.tape.record(-a.value, inputs: [a]) { g in [-g] }
    }

    /// Adds a constant tensor (no gradient flows into it).
    public static func + (a: Variable, b: Tensor) -> Variable { a + a.tape.constant(b) }
    /// Multiplies by a constant tensor (no gradient flows into it).
    public static func * (a: Variable, b: Tensor) -> Variable { a * a.tape.constant(b) }
    /// Subtracts a constant tensor (no gradient flows into it).
    public static func - (a: Variable, b: Tensor) -> Variable { a - a.tape.constant(b) }
}
