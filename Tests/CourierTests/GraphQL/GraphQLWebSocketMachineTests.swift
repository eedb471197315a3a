import Foundation
import Testing

@testable import Courier

/// `GraphQLWebSocketMachine`: frames in, actions out, for both protocols.
@Suite struct GraphQLWebSocketMachineTests {
    typealias Machine = GraphQLWebSocketMachine
    private let payload = Data(#"{"query":"subscription { ticks }"}"#.utf8)

    private func acknowledged(_ kind: GraphQLWebSocketProtocol) -> Machine {
        var machine = Machine(kind: kind)
        _ = machine.received(#"{"type":"connection_ack"}"#)
        return machine
    }

    @Test("graphql-transport-ws: init, subscriptions held until the ack, then subscribe; next, error, complete")
    func transportWSFlow() {
        var machine = Machine(kind: .transportWS)
        #expect(machine.connectionInit(payload: Data(#"{"Authorization":"Bearer t"}"#.utf8))
            == .send(#"{"type":"connection_init","payload":{"Authorization":"Bearer t"}}"#))
        #expect(machine.subscribe(id: "1", payload: payload).isEmpty)
        #expect(machine.subscribe(id: "2", payload: payload).isEmpty)
        #expect(machine.received(#"{"type":"connection_ack","payload":{}}"#) == [
            .acknowledged,
            .send(#"{"type":"subscribe","id":"1","payload":{"query":"subscription { ticks }"}}"#),
            .send(#"{"type":"subscribe","id":"2","payload":{"query":"subscription { ticks }"}}"#),
        ])
        #expect(machine.phase == .ready)
        #expect(machine.received(#"{"type":"next","id":"1","payload":{"data":{"ticks":0}}}"#)
            == [.result(id: "1", payload: Data(#"{"data":{"ticks":0}}"#.utf8))])
        #expect(machine.received(#"{"type":"error","id":"2","payload":[{"message":"no"}]}"#) == [
            .failed(id: "2", errors: [GraphQLError(message: "no")])
        ])
        #expect(machine.received(#"{"type":"complete","id":"1"}"#) == [.completed(id: "1")])
        #expect(machine.running.isEmpty)
        // Late messages for ended subscriptions are dropped, not errors.
        #expect(machine.received(#"{"type":"next","id":"1","payload":{"data":{"ticks":1}}}"#).isEmpty)
        #expect(machine.received(#"{"type":"complete","id":"2"}"#).isEmpty)
    }

    @Test("graphql-ws (legacy): start, data, stop; ka skipped; connection_terminate before the close")
    func legacyFlow() {
        var machine = Machine(kind: .legacyWS)
        #expect(machine.received(#"{"type":"ka"}"#).isEmpty)
        #expect(machine.received(#"{"type":"connection_ack"}"#) == [.acknowledged])
        #expect(machine.subscribe(id: "7", payload: payload) == [
            .send(#"{"type":"start","id":"7","payload":{"query":"subscription { ticks }"}}"#)
        ])
        #expect(machine.received(#"{"type":"ka"}"#).isEmpty)
        #expect(machine.received(#"{"type":"data","id":"7","payload":{"data":{"ticks":3}}}"#)
            == [.result(id: "7", payload: Data(#"{"data":{"ticks":3}}"#.utf8))])
        #expect(machine.stop(id: "7") == [.send(#"{"type":"stop","id":"7"}"#)])
        #expect(machine.stop(id: "7").isEmpty)
        #expect(machine.terminate() == [.send(#"{"type":"connection_terminate"}"#), .close(code: 1000, reason: "")])
        #expect(machine.terminate().isEmpty)
    }

    @Test("stopping sends complete only for a subscription that went out")
    func stopSendsComplete() {
        var machine = Machine(kind: .transportWS)
        _ = machine.subscribe(id: "1", payload: payload)
        #expect(machine.stop(id: "1").isEmpty)   // still waiting for the ack: never sent
        #expect(machine.received(#"{"type":"connection_ack"}"#) == [.acknowledged])
        _ = machine.subscribe(id: "2", payload: payload)
        #expect(machine.stop(id: "2") == [.send(#"{"type":"complete","id":"2"}"#)])
    }

    @Test("pings answered with pongs; keep-alive pings, and a missing pong makes the peer unresponsive")
    func pingPong() {
        var machine = Machine(kind: .transportWS)
        #expect(machine.received(#"{"type":"ping"}"#) == [.send(#"{"type":"pong"}"#)])
        machine = acknowledged(.transportWS)
        #expect(machine.received(#"{"type":"ping","payload":{"x":1}}"#) == [.send(#"{"type":"pong"}"#)])
        #expect(machine.keepAliveDue() == [.send(#"{"type":"ping"}"#)])
        #expect(machine.received(#"{"type":"pong"}"#).isEmpty)
        #expect(machine.keepAliveDue() == [.send(#"{"type":"ping"}"#)])
        #expect(machine.keepAliveDue() == [.unresponsive])
        var legacy = acknowledged(.legacyWS)
        #expect(legacy.keepAliveDue().isEmpty)
    }

    @Test("UNAUTHENTICATED in next or error, or legacy's connection_error, asks for a renewal")
    func unauthenticated() {
        var machine = acknowledged(.transportWS)
        _ = machine.subscribe(id: "1", payload: payload)
        #expect(machine.received(
            #"{"type":"next","id":"1","payload":{"data":null,"errors":[{"message":"expired","extensions":{"code":"UNAUTHENTICATED"}}]}}"#)
            == [.unauthenticated])
        #expect(machine.received(#"{"type":"error","id":"1","payload":[{"message":"x","extensions":{"code":"UNAUTHENTICATED"}}]}"#)
            == [.unauthenticated])
        var legacy = Machine(kind: .legacyWS)
        #expect(legacy.received(#"{"type":"connection_error","payload":{"message":"x","extensions":{"code":"UNAUTHENTICATED"}}}"#)
            == [.close(code: 1000, reason: ""), .unauthenticated])
        var refused = Machine(kind: .legacyWS)
        #expect(refused.received(#"{"type":"connection_error","payload":{"message":"go away"}}"#)
            == [.close(code: 1000, reason: ""), .broken("the server refused the connection: go away")])
    }

    @Test("hostile peers: garbled JSON, no type, an unknown type, a result before the ack, next without id: closed (4400 / 1002)")
    func hostile() {
        for (kind, code) in [(GraphQLWebSocketProtocol.transportWS, UInt16(4400)), (.legacyWS, 1002)] {
            var garbled = acknowledged(kind)
            let actions = garbled.received(#"{"type":"next","id":"1","payload":{"data":"#)
            #expect(actions.first == .close(code: code, reason: "Invalid message"))
            guard case .broken(let reason)? = actions.last else { Issue.record("not broken: \(actions)"); continue }
            #expect(reason.contains("not a JSON object"))
            #expect(garbled.phase == .ended)
            #expect(garbled.received(#"{"type":"connection_ack"}"#).isEmpty)

            var untyped = acknowledged(kind)
            #expect(untyped.received(#"{"id":"1"}"#).last == .broken(#"the server sent a message without a type: {"id":"1"}"#))
            var unknown = acknowledged(kind)
            #expect(unknown.received(#"{"type":"surprise"}"#).last == .broken(#"the server sent a message of unknown type "surprise""#))
            var early = Machine(kind: kind)
            #expect(early.received(#"{"type":"complete","id":"1"}"#).last == .broken(#"the server sent "complete" before acknowledging the connection"#))
            var noID = acknowledged(kind)
            #expect(noID.received(#"{"type":"complete"}"#).last == .broken(#"the server sent "complete" without an id"#))
            var array = acknowledged(kind)
            guard case .broken? = array.received("[1,2]").last else { Issue.record("an array was taken"); continue }
        }
    }

    @Test("close codes: 4401/4403 renew; 4400, 4409, 4429, 4500, 1002 fail; 1000, 1001, 4408, a drop reconnect")
    func closeVerdicts() {
        for code: UInt16 in [4401, 4403] { #expect(Machine.verdict(closeCode: code) == .renewCredential) }
        for code: UInt16 in [4400, 4004, 4005, 4406, 4409, 4429, 4500, 1002, 1003, 1007, 1008, 1009, 1011] {
            #expect(Machine.verdict(closeCode: code) == .fail, "\(code)")
        }
        for code: UInt16? in [nil, 1000, 1001, 1005, 1006, 1012, 1013, 4408, 4499, 4504, 3000] {
            #expect(Machine.verdict(closeCode: code) == .reconnect, "\(String(describing: code))")
        }
    }
}
