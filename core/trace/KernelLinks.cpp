#include "KernelLinks.h"

#include <algorithm>
#include <set>

namespace fusescope {

namespace {

struct GroupInStage {
    const StageGraph* stage;
    const FusionGroup* group;
    int32_t traceName; // index of the group's name in the trace's names, -1 when never traced
};

bool generated(const GroupInStage& g) {
    return g.group->kind == "kernel" || g.group->kind == "template";
}

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

class Linker {
public:
    explicit Linker(const KernelTrace& trace)
        : m_trace(trace) {
        m_links.eventGroup.assign(trace.events.size(), -1);
    }

    void link(const TraceEvent& e, const GroupInStage& g) {
        auto& refs = m_links.groups[m_trace.names[static_cast<size_t>(e.name)]];
        GroupRef ref{g.stage, g.group->id};
        if (std::find(refs.begin(), refs.end(), ref) == refs.end())
            refs.push_back(ref);
        auto [it, added] = m_linkedIndex.try_emplace(g.group, static_cast<int32_t>(m_links.linked.size()));
        if (added)
            m_links.linked.push_back(std::move(ref));
        m_links.eventGroup[static_cast<size_t>(&e - m_trace.events.data())] = it->second;
    }

    // The extern groups called between two generated kernels, and the events traced between them.
    // `bounded`: a generated kernel on both sides. A span at the start or the end of an iteration
    // may also hold work outside the compiled graphs (an eager loss, an optimizer step), so there
    // only an op name or an exact count links.
    void linkSpan(const std::vector<const GroupInStage*>& groups,
                  const std::vector<const TraceEvent*>& events, bool bounded) {
        if (groups.empty() || events.empty())
            return;
        std::vector<bool> groupTaken(groups.size(), false);
        std::vector<const TraceEvent*> rest;
        size_t next = 0; // by op name, in order: aten::addmm takes the next extern_kernels.addmm
        for (const auto* e : events) {
            const std::string op = externOpName(m_trace.names[static_cast<size_t>(e->name)]);
            size_t k = next;
            while (!op.empty() && k < groups.size() && externOpName(groups[k]->group->name) != op)
                ++k;
            if (!op.empty() && k < groups.size()) {
                link(*e, *groups[k]);
                groupTaken[k] = true;
                next = k + 1;
            } else if (e->kind == EventKind::Kernel && !m_generatedNames.count(e->name)) {
                rest.push_back(e); // a kernel named after a generated group is that group's, not an extern's
            }
        }
        std::vector<const GroupInStage*> open;
        for (size_t k = 0; k < groups.size(); ++k)
            if (!groupTaken[k])
                open.push_back(groups[k]);
        if (open.empty() || rest.empty())
            return;
        if (open.size() == 1 && bounded) {
            for (const auto* e : rest)
                link(*e, *open.front());
        } else if (open.size() == rest.size()) {
            for (size_t k = 0; k < rest.size(); ++k)
                link(*rest[k], *open[k]);
        }
    }

    void linkIteration(const std::vector<GroupInStage>& order, const std::vector<const TraceEvent*>& events) {
        for (const auto& g : order)
            if (generated(g) && g.traceName >= 0)
                m_generatedNames.insert(g.traceName);
        size_t at = 0;
        bool afterKernel = false;
        std::vector<const GroupInStage*> pending;
        for (const auto& g : order) {
            if (!generated(g)) {
                pending.push_back(&g);
                continue;
            }
            if (g.traceName < 0)
                continue; // never traced: no scan (a 10^6-event trace must stay quick to link)
            size_t j = at;
            while (j < events.size() && events[j]->name != g.traceName)
                ++j;
            if (j == events.size())
                continue; // not traced in this iteration: the span goes on to the next kernel
            linkSpan(pending,
                     {events.begin() + static_cast<std::ptrdiff_t>(at),
                      events.begin() + static_cast<std::ptrdiff_t>(j)},
                     afterKernel);
            pending.clear();
            link(*events[j], g);
            at = j + 1;
            afterKernel = true;
        }
        linkSpan(pending, {events.begin() + static_cast<std::ptrdiff_t>(at), events.end()}, false);
    }

    KernelLinks take() { return std::move(m_links); }

private:
    const KernelTrace& m_trace;
    KernelLinks m_links;
    std::set<int32_t> m_generatedNames;                  // trace name indices of generated groups
    std::map<const FusionGroup*, int32_t> m_linkedIndex; // group -> index into m_links.linked
};

} // namespace

const std::vector<GroupRef>* KernelLinks::groupsOf(const std::string& name) const {
    auto it = groups.find(name);
    return it == groups.end() ? nullptr : &it->second;
}

std::string externOpName(const std::string& name) {
    std::string op;
    if (startsWith(name, "aten::"))
        op = name.substr(6);
    else if (startsWith(name, "extern_kernels."))
        op = name.substr(15);
    else if (startsWith(name, "torch.ops.aten.")) {
        op = name.substr(15);
        op = op.substr(0, op.find('.')); // drop the overload
    }
    return op;
}

std::vector<const StageGraph*> afterFusionStages(const BackendRun& run) {
    std::vector<const StageGraph*> forward, backward;
    for (const auto& s : run.stages) {
        if (s.fusion != "after" || s.status != StageStatus::Ok || s.groups.empty())
            continue;
        (s.pass == "backward" ? backward : forward).push_back(&s);
    }
    std::stable_sort(forward.begin(), forward.end(),
                     [](const StageGraph* a, const StageGraph* b) { return a->graph < b->graph; });
    std::stable_sort(backward.begin(), backward.end(),
                     [](const StageGraph* a, const StageGraph* b) { return a->graph > b->graph; });
    forward.insert(forward.end(), backward.begin(), backward.end());
    return forward;
}

KernelLinks linkKernelsToGroups(const KernelTrace& trace, const std::vector<const StageGraph*>& stages) {
    std::map<std::string, int32_t> nameIndex;
    for (size_t i = 0; i < trace.names.size(); ++i)
        nameIndex.emplace(trace.names[i], static_cast<int32_t>(i));
    std::vector<GroupInStage> order;
    for (const auto* s : stages)
        for (const auto& g : s->groups)
            if (g.isKernel()) {
                auto it = nameIndex.find(g.name);
                order.push_back({s, &g, it == nameIndex.end() ? -1 : it->second});
            }
    Linker linker(trace);
    if (!order.empty()) {
        // Per iteration, the kernels and top-level ops in launch order, whatever their row.
        std::map<int32_t, std::vector<const TraceEvent*>> byIteration;
        for (const auto& e : trace.events)
            if (e.kind == EventKind::Kernel || e.kind == EventKind::CpuOp)
                byIteration[e.iteration].push_back(&e);
        for (auto& [iteration, events] : byIteration) {
            std::stable_sort(events.begin(), events.end(), [](const TraceEvent* a, const TraceEvent* b) {
                return a->startNs < b->startNs;
            });
            linker.linkIteration(order, events);
        }
    }
    KernelLinks links = linker.take();
    std::set<std::string> unlinked;
    for (const auto& e : trace.events) {
        const auto& name = trace.names[static_cast<size_t>(e.name)];
        if (e.kind == EventKind::Kernel && !links.groups.count(name))
            unlinked.insert(name);
    }
    links.unlinkedKernels.assign(unlinked.begin(), unlinked.end());
    return links;
}

} // namespace fusescope
