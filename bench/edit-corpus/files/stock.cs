using System;
using System.Collections.Generic;

namespace Inventory
{
    public class Item
    {
        public string Name { get; set; }
        public int Quantity { get; set; }
        public decimal Price { get; set; }

        public decimal Total()
        {
            return Quantity * Price;
        }
    }

    public class Stock
    {
        private readonly List<Item> items = new List<Item>();

        public void Add(Item item)
        {
            if (item == null)
            {
                throw new ArgumentNullException(nameof(item));
            }
            items.Add(item);
        }

        public decimal Value()
        {
            decimal total = 0;
            foreach (var item in items)
            {
                total += item.Total();
            }
            return total;
        }

        public Item Find(string name)
        {
            foreach (var item in items)
            {
                if (item.Name == name)
                {
                    return item;
                }
            }
            return null;
        }
    }
}
