import json
import logging
from dataclasses import dataclass, field
from typing import Optional

log = logging.getLogger(__name__)


@dataclass
class Task:
    id: int
    title: str
    done: bool = False
    tags: list[str] = field(default_factory=list)

    def complete(self) -> None:
        if self.done:
            log.warning("task %s already done", self.id)
            return
        self.done = True
        log.info("task %s completed", self.id)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "done": self.done,
            "tags": list(self.tags),
        }


class TaskStore:
    def __init__(self, path: str) -> None:
        self.path = path
        self.tasks: dict[int, Task] = {}
        self.next_id = 1

    def load(self) -> None:
        try:
            with open(self.path, "r", encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            log.info("no task file at %s", self.path)
            return
        for item in data:
            task = Task(item["id"], item["title"], item["done"], item.get("tags", []))
            self.tasks[task.id] = task
        self.next_id = max(self.tasks, default=0) + 1

    def save(self) -> None:
        with open(self.path, "w", encoding="utf-8") as handle:
            json.dump([t.to_dict() for t in self.tasks.values()], handle, indent=2)

    def add(self, title: str, tags: Optional[list[str]] = None) -> Task:
        task = Task(self.next_id, title, tags=tags or [])
        self.tasks[task.id] = task
        self.next_id += 1
        return task

    def remove(self, task_id: int) -> bool:
        if task_id not in self.tasks:
            return False
        del self.tasks[task_id]
        return True

    def pending(self) -> list[Task]:
        return [t for t in self.tasks.values() if not t.done]

    def completed(self) -> list[Task]:
        return [t for t in self.tasks.values() if t.done]

    def by_tag(self, tag: str) -> list[Task]:
        result = []
        for task in self.tasks.values():
            if tag in task.tags:
                result.append(task)
        return result


def summarize(store: TaskStore) -> str:
    pending = store.pending()
    completed = store.completed()
    lines = [f"{len(pending)} pending, {len(completed)} completed"]
    for task in pending:
        lines.append(f"- [ ] {task.title}")
    for task in completed:
        lines.append(f"- [x] {task.title}")
    return "\n".join(lines)


def main() -> None:
    logging.basicConfig(level=logging.INFO)
    store = TaskStore("tasks.json")
    store.load()
    print(summarize(store))
    store.save()


if __name__ == "__main__":
    main()
