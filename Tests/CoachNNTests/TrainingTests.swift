import Foundation
import XCTest
import CoachNN
import TestSupport

/// Real learning: seeded networks fit non-linear problems, bit-identically for a seed.
final class TrainingTests: XCTestCase {
    /// Two interleaved spirals (a classic non-linearly-separable problem).
    static func spirals(count: Int, generator: inout SeededGenerator) -> (Tensor, [Int]) {
        var xs: [Float] = [], labels: [Int] = []
        for i in 0..<count {
            let label = i % 2
            let t = Float(i / 2) / Float(count / 2) * 3 * .pi + 0.3
            let r = t / (3 * .pi)
            let angle = t + (label == 1 ? .pi : 0)
            xs += [r * cos(angle) + 0.01 * generator.nextNormal(), r * sin(angle) + 0.01 * generator.nextNormal()]
            labels.append(label)
        }
        return (Tensor(shape: [count, 2], scalars: xs), labels)
    }

    final class MLP: Module {
        let l1, l2, l3: Linear
        init(generator: inout SeededGenerator) {
            l1 = Linear(inputSize: 2, outputSize: 64, initializer: .heNormal, generator: &generator)
            l2 = Linear(inputSize: 64, outputSize: 64, initializer: .heNormal, generator: &generator)
            l3 = Linear(inputSize: 64, outputSize: 2, generator: &generator)
        }
        var children: [(String, Module)] { [("l1", l1), ("l2", l2), ("l3", l3)] }
        func callAsFunction(_ x: Variable) -> Variable { l3(l2(l1(x).tanh()).tanh()) }
    }

    func trainSpirals(seed: UInt64) -> (accuracy: Float, weights: [String: Tensor]) {
        var g = SeededGenerator(seed: seed)
        let (x, y) = Self.spirals(count: 400, generator: &g)
        let model = MLP(generator: &g)
        let optimizer = Adam(learningRate: 0.01)
        let schedule = WarmUpSchedule(CosineSchedule(base: 0.01, totalSteps: 1400, minimum: 1e-4), warmUpSteps: 100)
        for step in 0..<1500 {
            optimizer.learningRate = schedule.rate(at: step)
            let tape = Tape(mode: .training, generator: g.fork())
            let loss = Loss.softmaxCrossEntropy(logits: model(tape.constant(x)), labels: y)
            optimizer.update(model.namedParameters, gradients: tape.gradients(of: loss))
        }
        let logits = model(Tape(mode: .inference, recordsGradients: false).constant(x)).value
        let correct = zip(logits.argmax(axis: 1), y).filter { $0 == $1 }.count
        return (Float(correct) / Float(y.count), model.stateDictionary)
    }

    func testMLPFitsTwoSpiralsAndIsBitReproducible() {
        let first = trainSpirals(seed: 11)
        XCTAssertGreaterThanOrEqual(first.accuracy, 0.99, "two-spirals training accuracy")
        let second = trainSpirals(seed: 11)
        XCTAssertEqual(first.weights, second.weights, "the same seed must give bit-identical weights")
        XCTAssertNotEqual(first.weights, trainSpirals(seed: 12).weights)
    }

    /// A small CNN tells horizontal from vertical bars in noisy 12×12 images.
    final class SmallCNN: Module {
        let conv1: Conv2D, bn1: BatchNorm, conv2: DepthwiseConv2D, conv3: Conv2D, head: Linear, dropout = Dropout(rate: 0.1)
        init(generator: inout SeededGenerator) {
            conv1 = Conv2D(kernelSize: (3, 3), inputChannels: 1, outputChannels: 8, stride: (2, 2), generator: &generator)
            bn1 = BatchNorm(featureCount: 8)
            conv2 = DepthwiseConv2D(kernelSize: (3, 3), channels: 8, generator: &generator)
            conv3 = Conv2D(kernelSize: (1, 1), inputChannels: 8, outputChannels: 16, generator: &generator)
            head = Linear(inputSize: 16, outputSize: 3, generator: &generator)
        }
        var children: [(String, Module)] {
            [("conv1", conv1), ("bn1", bn1), ("conv2", conv2), ("conv3", conv3), ("head", head)]
        }
        func callAsFunction(_ x: Variable) -> Variable {
            var h = bn1(conv1(x)).relu6()
            h = conv3(conv2(h).relu6()).relu()
            h = Variable.maxPool2D(h, kernel: (2, 2), stride: (2, 2))
            return head(dropout(Variable.globalAveragePool(h)))
        }
    }

    static func bars(count: Int, generator: inout SeededGenerator) -> (Tensor, [Int]) {
        var pixels: [Float] = [], labels: [Int] = []
        for i in 0..<count {
            let label = i % 3  // 0: horizontal bar, 1: vertical bar, 2: both (a cross)
            var img = [Float](repeating: 0, count: 144)
            for p in 0..<144 { img[p] = 0.3 * generator.nextNormal() }
            let r = generator.nextInt(in: 1...10), c = generator.nextInt(in: 1...10)
            for k in 0..<12 {
                if label != 1 { img[r * 12 + k] += 1 }
                if label != 0 { img[k * 12 + c] += 1 }
            }
            pixels += img
            labels.append(label)
        }
        return (Tensor(shape: [count, 12, 12, 1], scalars: pixels), labels)
    }

    func trainCNN(seed: UInt64) -> (accuracy: Float, weights: [String: Tensor]) {
        var g = SeededGenerator(seed: seed)
        let (x, y) = Self.bars(count: 240, generator: &g)
        let (testX, testY) = Self.bars(count: 90, generator: &g)
        let model = SmallCNN(generator: &g)
        let optimizer = Adam.adamW(learningRate: 0.01, weightDecay: 1e-4)
        var order = Array(0..<240)
        for _ in 0..<25 {
            g.shuffle(&order)
            for start in stride(from: 0, to: 240, by: 30) {
                let rows = Array(order[start..<(start + 30)])
                let tape = Tape(mode: .training, generator: g.fork())
                let loss = Loss.softmaxCrossEntropy(logits: model(tape.constant(x.gathering(rows: rows))),
                                                    labels: rows.map { y[$0] }, labelSmoothing: 0.05)
                var grads = tape.gradients(of: loss)
                GradientClipping.clipByGlobalNorm(&grads, parameters: model.trainableParameters, maxNorm: 5)
                optimizer.update(model.namedParameters, gradients: grads)
            }
        }
        let logits = model(Tape(mode: .inference, recordsGradients: false).constant(testX)).value
        let correct = zip(logits.argmax(axis: 1), testY).filter { $0 == $1 }.count
        return (Float(correct) / Float(testY.count), model.stateDictionary)
    }

    func testSmallCNNLearnsASyntheticImageTask() {
        let first = trainCNN(seed: 5)
        XCTAssertGreaterThanOrEqual(first.accuracy, 0.95, "held-out accuracy on bars")
        XCTAssertEqual(first.weights, trainCNN(seed: 5).weights, "the same seed must give bit-identical weights")
    }
}
