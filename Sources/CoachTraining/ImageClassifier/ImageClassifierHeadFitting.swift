import CoachModels
import CoachNN
import CoachRandom
import Foundation

/// Standardised features and labels of the training and validation rows.
struct HeadTrainingData {
    var training: Tensor
    var trainingLabels: [Int]
    var validation: Tensor?
    var validationLabels: [Int]
    var classCount: Int
}

/// The outcome of fitting a head: its layers on standardised features, the history, and
/// the iteration whose weights were kept.
struct HeadFit {
    var layers: [ImageClassifierHead.Layer]
    var history: [IterationSummary]
    var bestIteration: Int?
    var stoppedEarly: Bool
}

/// Loss and accuracy of logits against labels.
func lossAndAccuracy(logits: Tensor, labels: [Int]) -> (loss: Double, accuracy: Double) {
    guard !labels.isEmpty else { return (0, 0) }
    let logProbabilities = logits.logSoftmax(axis: -1)
    let classes = logits.shape[1]
    var loss = 0.0, correct = 0
    let predictions = logits.argmax(axis: 1)
    for (row, label) in labels.enumerated() {
        loss -= Double(logProbabilities.scalars[row * classes + label])
        if predictions[row] == label { correct += 1 }
    }
    return (loss / Double(labels.count), Double(correct) / Double(labels.count))
}

/// Fits the logistic head by L-BFGS, with early stopping on the validation loss.
func fitLogisticHead(_ data: HeadTrainingData, configuration: ImageClassifierTrainingConfiguration,
                     observer: TrainingObserver?) -> HeadFit {
    let regression = SoftmaxRegression(l2Penalty: configuration.l2Penalty)
    var stopping = EarlyStopping(patience: configuration.earlyStoppingPatience, minimumDelta: 1e-4, higherIsBetter: false)
    var best: SoftmaxRegression.Parameters?
    var history: [IterationSummary] = []
    let total = configuration.maximumIterations
    let fit = regression.fit(features: data.training, labels: data.trainingLabels, classCount: data.classCount,
                             maximumIterations: total) { iteration, parameters, loss in
        let trainingAccuracy = lossAndAccuracy(logits: parameters.logits(data.training), labels: data.trainingLabels).accuracy
        var summary = IterationSummary(iteration: iteration, totalIterations: total, trainingLoss: loss,
                                       trainingAccuracy: trainingAccuracy)
        if let validation = data.validation {
            let result = lossAndAccuracy(logits: parameters.logits(validation), labels: data.validationLabels)
            summary.validationLoss = result.loss
            summary.validationAccuracy = result.accuracy
            summary.isBest = stopping.record(result.loss, iteration: iteration)
            if summary.isBest { best = parameters }
        }
        history.append(summary)
        observer?(.iteration(summary))
        return data.validation == nil || !stopping.shouldStop
    }
    let kept = best ?? fit.parameters
    let stoppedEarly = fit.termination == .stopped
    if fit.termination == .converged { observer?(.note("the logistic regression converged after \(history.count) iterations")) }
    return HeadFit(layers: [ImageClassifierHead.Layer(weight: kept.weight, bias: kept.bias)], history: history,
                   bestIteration: data.validation == nil ? nil : stopping.bestIteration, stoppedEarly: stoppedEarly)
}

/// The MLP head: standardised features → dense (ReLU, dropout) → dense to classes.
final class MLPHeadNetwork: Module {
    let hidden: Linear
    let output: Linear
    let dropout: Dropout

    init(inputs: Int, hiddenUnits: Int, classes: Int, dropout rate: Float, generator: inout SeededGenerator) {
        hidden = Linear(inputSize: inputs, outputSize: hiddenUnits, initializer: .heNormal, generator: &generator)
        output = Linear(inputSize: hiddenUnits, outputSize: classes, generator: &generator)
        dropout = Dropout(rate: rate)
    }

    var children: [(String, Module)] { [("hidden", hidden), ("output", output)] }

    func callAsFunction(_ x: Variable) -> Variable { output(dropout(hidden(x).relu())) }

    /// The layers as plain tensors.
    var layers: [ImageClassifierHead.Layer] {
        [ImageClassifierHead.Layer(weight: hidden.weight.value, bias: hidden.bias!.value),
         ImageClassifierHead.Layer(weight: output.weight.value, bias: output.bias!.value)]
    }
}

/// Fits the MLP head with AdamW on shuffled mini-batches (one iteration = one epoch), with
/// early stopping on the validation loss; the best epoch's weights are kept.
func fitMLPHead(_ data: HeadTrainingData, configuration: ImageClassifierTrainingConfiguration,
                observer: TrainingObserver?) -> HeadFit {
    var generator = SeededGenerator(seed: configuration.seed)
    var initGenerator = generator.fork()
    let network = MLPHeadNetwork(inputs: data.training.shape[1], hiddenUnits: configuration.hiddenUnits,
                                 classes: data.classCount, dropout: Float(configuration.dropout), generator: &initGenerator)
    let optimizer = Adam.adamW(learningRate: Float(configuration.learningRate), weightDecay: 1e-2)
    let total = configuration.maximumIterations
    let rowCount = data.trainingLabels.count
    let stepsPerEpoch = (rowCount + configuration.batchSize - 1) / configuration.batchSize
    let schedule = CosineSchedule(base: Float(configuration.learningRate), totalSteps: max(1, total * stepsPerEpoch),
                                  minimum: Float(configuration.learningRate) * 0.01)
    var stopping = EarlyStopping(patience: configuration.earlyStoppingPatience, minimumDelta: 1e-4, higherIsBetter: false)
    var best: [ImageClassifierHead.Layer]?
    var history: [IterationSummary] = []
    var step = 0
    var stoppedEarly = false
    let width = data.training.shape[1]
    func evaluate(_ features: Tensor) -> Tensor {
        let tape = Tape(mode: .inference, recordsGradients: false)
        return network(tape.constant(features)).value
    }
    for epoch in 1...total {
        var order = Array(0..<rowCount)
        generator.shuffle(&order)
        var lossSum = 0.0
        for start in stride(from: 0, to: rowCount, by: configuration.batchSize) {
            let rows = order[start..<min(rowCount, start + configuration.batchSize)]
            var scalars: [Float] = []
            scalars.reserveCapacity(rows.count * width)
            for row in rows { scalars += data.training.scalars[(row * width)..<((row + 1) * width)] }
            let batch = Tensor(shape: [rows.count, width], scalars: scalars)
            optimizer.learningRate = schedule.rate(at: step)
            let tape = Tape(mode: .training, generator: generator.fork())
            let loss = Loss.softmaxCrossEntropy(logits: network(tape.constant(batch)), labels: rows.map { data.trainingLabels[$0] })
            optimizer.update(network.namedParameters, gradients: tape.gradients(of: loss))
            lossSum += Double(loss.value.scalar) * Double(rows.count)
            step += 1
        }
        let trainingAccuracy = lossAndAccuracy(logits: evaluate(data.training), labels: data.trainingLabels).accuracy
        var summary = IterationSummary(iteration: epoch, totalIterations: total, trainingLoss: lossSum / Double(max(rowCount, 1)),
                                       trainingAccuracy: trainingAccuracy, learningRate: Double(optimizer.learningRate))
        if let validation = data.validation {
            let result = lossAndAccuracy(logits: evaluate(validation), labels: data.validationLabels)
            summary.validationLoss = result.loss
            summary.validationAccuracy = result.accuracy
            summary.isBest = stopping.record(result.loss, iteration: epoch)
            if summary.isBest { best = network.layers }
        }
        history.append(summary)
        observer?(.iteration(summary))
        if data.validation != nil && stopping.shouldStop && epoch < total {
            stoppedEarly = true
            break
        }
    }
    return HeadFit(layers: best ?? network.layers, history: history,
                   bestIteration: data.validation == nil ? nil : stopping.bestIteration, stoppedEarly: stoppedEarly)
}
